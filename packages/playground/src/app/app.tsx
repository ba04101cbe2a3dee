import { useEffect, useState } from 'react';
import { AgentForm } from './agent-form';
import { AgentPanels } from './agent-panels';
import { AgentPicker, type MetadataFilter } from './agent-picker';
import { loadFollowedRun, saveFollowedRun } from './background-run';
import { ChatColumn } from './chat-column';
import { ErrorLine } from './error-line';
import { KeyForm } from './key-form';
import { loadKey, saveKey } from './key-store';
import { useAgentData } from './use-agent-data';
import { useConversation } from './use-conversation';

/** What the main column shows: the chat, or the form that creates or edits an agent. */
type Mode = 'chat' | 'new' | 'edit';

/** The playground: the key, the agents, an agent's sessions and versions, and the chat with it. */
export function App() {
  const [apiKey, setApiKey] = useState(loadKey);
  const [agentId, setAgentId] = useState<string>();
  const [mode, setMode] = useState<Mode>('chat');
  const [filter, setFilter] = useState<MetadataFilter>();
  const [runVersion, setRunVersion] = useState<number>();
  const { conversation, current, setCurrent, error, start, open } = useConversation(apiKey);
  const { agents, agent, versions, sessions } = useAgentData(apiKey, agentId, filter);

  // After a reload, the background run this tab was following: its agent and session show, and
  // the chat reattaches to it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, at load
  useEffect(() => {
    const run = loadFollowedRun();
    if (!run || !apiKey) return;
    setAgentId(run.agent_id);
    void open(run.agent_id, run.session_id, { orNew: true });
  }, []);

  function changeKey(key: string) {
    saveKey(key);
    // The run followed belongs to the old key's account, and its text should not outlive the key.
    saveFollowedRun(undefined);
    setApiKey(key);
    setAgentId(undefined);
    start();
  }
  function pickAgent(id: string) {
    setAgentId(id);
    setMode('chat');
    setRunVersion(undefined);
    start();
  }
  /** After an edit or a restore: the agent, its versions and the list show the new version. */
  function changed() {
    agents.reload();
    agent.reload();
    versions.reload();
    setMode('chat');
  }

  return (
    <div className="layout">
      <header>
        <h1>agenthost playground</h1>
        <KeyForm apiKey={apiKey} onChange={changeKey} />
      </header>
      <aside>
        <AgentPicker
          agents={agents.data}
          agentId={agentId}
          filter={filter}
          onPick={pickAgent}
          onNew={() => setMode('new')}
          onFilter={setFilter}
        />
        <ErrorLine error={agents.error ?? agent.error} />
        {agentId && (
          <AgentPanels
            apiKey={apiKey}
            agentId={agentId}
            agent={agent.data}
            sessions={sessions.data?.sessions}
            versions={versions.data}
            current={current}
            onEdit={() => setMode('edit')}
            onOpen={(sessionId) => open(agentId, sessionId)}
            onNew={() => start()}
            onDeleted={(sessionId) => {
              sessions.reload();
              if (sessionId === current) start();
            }}
            onRestored={changed}
          />
        )}
      </aside>
      <main>
        <ErrorLine error={error ?? versions.error} />
        {!apiKey && <p className="muted">Enter an API key to start (agenthost keys create --account you).</p>}
        {mode === 'new' && apiKey && (
          <AgentForm
            apiKey={apiKey}
            onCancel={() => setMode('chat')}
            onSaved={(id) => {
              agents.reload();
              pickAgent(id);
            }}
          />
        )}
        {mode === 'edit' && apiKey && agent.data && (
          <AgentForm
            key={`${agent.data.agent_id}-${agent.data.version}`}
            apiKey={apiKey}
            agent={agent.data}
            onCancel={() => setMode('chat')}
            onSaved={changed}
          />
        )}
        {apiKey && agentId && (
          <ChatColumn
            apiKey={apiKey}
            agentId={agentId}
            agent={agent.data}
            versions={versions.data?.versions}
            runVersion={runVersion}
            onRunVersion={setRunVersion}
            conversation={conversation}
            hidden={mode !== 'chat'}
            onTurn={(sessionId) => {
              setCurrent(sessionId);
              sessions.reload();
            }}
            onReopen={(sessionId) => void open(agentId, sessionId)}
          />
        )}
      </main>
    </div>
  );
}
