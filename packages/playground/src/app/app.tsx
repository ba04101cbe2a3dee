import { useState } from 'react';
import { AgentPicker } from './agent-picker';
import { type Agent, agentPath, api, type SessionInfo, type StoredMessage } from './api';
import { Chat } from './chat';
import { historyMessages } from './history';
import { KeyForm } from './key-form';
import { loadKey, saveKey } from './key-store';
import type { PlaygroundMessage } from './message-view';
import { NewAgentForm } from './new-agent-form';
import { SessionList } from './session-list';
import { useApiData } from './use-api';

/** The conversation shown: a new `round` remounts the chat with its session and history. */
interface Conversation {
  round: number;
  sessionId: string | undefined;
  history: PlaygroundMessage[];
}

/** The playground: the key, the agents, an agent's sessions, and the chat with it. */
export function App() {
  const [apiKey, setApiKey] = useState(loadKey);
  const [agentId, setAgentId] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [current, setCurrent] = useState<string>();
  const [conversation, setConversation] = useState<Conversation>({ round: 0, sessionId: undefined, history: [] });
  const [error, setError] = useState<string>();
  const agents = useApiData<Agent[]>(apiKey, '/agents');
  const sessions = useApiData<{ sessions: SessionInfo[] }>(apiKey, agentId && `${agentPath(agentId)}/sessions`);

  function startConversation(sessionId?: string, history: PlaygroundMessage[] = []) {
    setError(undefined);
    setCurrent(sessionId);
    setConversation((c) => ({ round: c.round + 1, sessionId, history }));
  }
  function changeKey(key: string) {
    saveKey(key);
    setApiKey(key);
    setAgentId(undefined);
    startConversation();
  }
  function pickAgent(id: string) {
    setAgentId(id);
    setCreating(false);
    startConversation();
  }
  async function openSession(sessionId: string) {
    if (!agentId) return;
    try {
      const path = `${agentPath(agentId)}/sessions/${encodeURIComponent(sessionId)}`;
      const stored = await api<{ messages: StoredMessage[] }>(apiKey, path);
      startConversation(sessionId, historyMessages(sessionId, stored.messages));
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return (
    <div className="layout">
      <header>
        <h1>agenthost playground</h1>
        <KeyForm apiKey={apiKey} onChange={changeKey} />
      </header>
      <aside>
        <AgentPicker agents={agents.data} agentId={agentId} onPick={pickAgent} onNew={() => setCreating(true)} />
        {agents.error && (
          <p role="alert" className="error">
            {agents.error}
          </p>
        )}
        {agentId && (
          <SessionList
            apiKey={apiKey}
            agentId={agentId}
            sessions={sessions.data?.sessions}
            current={current}
            onOpen={openSession}
            onNew={() => startConversation()}
            onDeleted={(sessionId) => {
              sessions.reload();
              if (sessionId === current) startConversation();
            }}
          />
        )}
      </aside>
      <main>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {!apiKey && <p className="muted">Enter an API key to start (`agenthost keys create --account you`).</p>}
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
