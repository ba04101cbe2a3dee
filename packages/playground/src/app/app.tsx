import { useState } from 'react';
import { AgentPicker } from './agent-picker';
import { type Agent, agentPath, type SessionInfo } from './api';
import { Chat } from './chat';
import { ErrorLine } from './error-line';
import { KeyForm } from './key-form';
import { loadKey, saveKey } from './key-store';
import { NewAgentForm } from './new-agent-form';
import { SessionList } from './session-list';
import { useApiData } from './use-api';
import { useConversation } from './use-conversation';

/** The playground: the key, the agents, an agent's sessions, and the chat with it. */
export function App() {
  const [apiKey, setApiKey] = useState(loadKey);
  const [agentId, setAgentId] = useState<string>();
  const [creating, setCreating] = useState(false);
  const { conversation, current, setCurrent, error, start, open } = useConversation(apiKey);
  const agents = useApiData<Agent[]>(apiKey, '/agents');
  const sessions = useApiData<{ sessions: SessionInfo[] }>(apiKey, agentId && `${agentPath(agentId)}/sessions`);

  function changeKey(key: string) {
    saveKey(key);
    setApiKey(key);
    setAgentId(undefined);
    start();
  }
  function pickAgent(id: string) {
    setAgentId(id);
    setCreating(false);
    start();
  }

  return (
    <div className="layout">
      <header>
        <h1>agenthost playground</h1>
        <KeyForm apiKey={apiKey} onChange={changeKey} />
      </header>
      <aside>
        <AgentPicker agents={agents.data} agentId={agentId} onPick={pickAgent} onNew={() => setCreating(true)} />
        <ErrorLine error={agents.error} />
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
      </aside>
      <main>
        <ErrorLine error={error} />
        {!apiKey && <p className="muted">Enter an API key to start (agenthost keys create --account you).</p>}
        {creating && apiKey && (
          <NewAgentForm
            apiKey={apiKey}
            onCancel={() => setCreating(false)}
            onCreated={(id) => {
              agents.reload();
              pickAgent(id);
            }}
          />
        )}
        {!creating && apiKey && agentId && (
          <Chat
            key={`${apiKey}\n${agentId}\n${conversation.round}`}
            apiKey={apiKey}
            agentId={agentId}
            sessionId={conversation.sessionId}
            history={conversation.history}
            onTurn={(sessionId) => {
              setCurrent(sessionId);
              sessions.reload();
            }}
          />
        )}
      </main>
    </div>
  );
}
