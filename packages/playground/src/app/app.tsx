import { useState } from 'react';
import { AgentForm } from './agent-form';
import { AgentPicker, type MetadataFilter } from './agent-picker';
import { type Agent, type AgentVersion, agentPath, agentsPath, type SessionInfo } from './api';
import { Chat } from './chat';
import { ErrorLine } from './error-line';
import { KeyForm } from './key-form';
import { loadKey, saveKey } from './key-store';
import { SessionList } from './session-list';
import { useApiData } from './use-api';
import { useConversation } from './use-conversation';
import { VersionChooser } from './version-chooser';
import { VersionsPanel } from './versions-panel';

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
  const agents = useApiData<Agent[]>(apiKey, agentsPath(filter));
  const agent = useApiData<Agent>(apiKey, agentId && agentPath(agentId));
  const versions = useApiData<{ versions: AgentVersion[]; next_cursor: string | null }>(
    apiKey,
    agentId && `${agentPath(agentId)}/versions?limit=100`,
  );
  const sessions = useApiData<{ sessions: SessionInfo[] }>(apiKey, agentId && `${agentPath(agentId)}/sessions`);

  function changeKey(key: string) {
    saveKey(key);
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
        {agentId && agent.data && (
          <button type="button" onClick={() => setMode('edit')}>
            Edit agent
          </button>
        )}
        {agentId && (
          <SessionList
            apiKey={apiKey}
            agentId={agentId}
            sessions={sessions.data?.sessions}
            current={current}
            onOpen={(sessionId) => open(agentId, sessionId)}
            onNew={() => start()}
            onDeleted={(sessionId) => {
              sessions.reload();
              if (sessionId === current) start();
            }}
          />
        )}
        {agentId && agent.data && (
          <VersionsPanel
            key={agentId}
            apiKey={apiKey}
            agent={agent.data}
            versions={versions.data?.versions}
            more={Boolean(versions.data?.next_cursor)}
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
          // Kept while a form shows, so the conversation goes on after an edit.
          <div className="chat-column" hidden={mode !== 'chat'}>
            {agent.data && (
              <VersionChooser
                current={agent.data.version}
                versions={versions.data?.versions}
                version={runVersion}
                onChange={setRunVersion}
              />
            )}
            <Chat
              key={`${apiKey}\n${agentId}\n${conversation.round}`}
              apiKey={apiKey}
              agentId={agentId}
              sessionId={conversation.sessionId}
              history={conversation.history}
              version={runVersion}
              onTurn={(sessionId) => {
                setCurrent(sessionId);
                sessions.reload();
              }}
            />
          </div>
        )}
      </main>
    </div>
  );
}
