import { useState } from 'react';
import { agentPath, api, type SessionInfo } from './api';
import { ErrorLine } from './error-line';

/** When a session was last written to, in the reader's locale. */
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });

/** The sidebar's list of an agent's earlier sessions: open one, delete one, or start a new one. */
export function SessionList({
  apiKey,
  agentId,
  sessions,
  current,
  onOpen,
  onNew,
  onDeleted,
}: {
  apiKey: string;
  agentId: string;
  sessions: SessionInfo[] | undefined;
  current: string | undefined;
  onOpen: (sessionId: string) => void;
  onNew: () => void;
  onDeleted: (sessionId: string) => void;
}) {
  const [error, setError] = useState<string>();
  async function remove(sessionId: string) {
    setError(undefined);
    try {
      await api(apiKey, `${agentPath(agentId)}/sessions/${encodeURIComponent(sessionId)}`, { method: 'DELETE' });
      onDeleted(sessionId);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }
  return (
    <nav className="sessions" aria-label="Sessions">
      <button type="button" onClick={onNew}>
        New session
      </button>
      <ErrorLine error={error} />
      <ul>
        {(sessions ?? []).map((session) => (
          <li key={session.session_id} className={session.session_id === current ? 'current' : undefined}>
            <button
              type="button"
              className="open"
              aria-current={session.session_id === current ? 'true' : undefined}
              aria-label={`Open session of ${when(session.updated_at)}, ${session.message_count} messages`}
              onClick={() => onOpen(session.session_id)}
            >
              {when(session.updated_at)} · {session.message_count} messages
            </button>
            <button
              type="button"
              className="delete"
              aria-label={`Delete session of ${when(session.updated_at)}`}
              onClick={() => remove(session.session_id)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      {sessions?.length === 0 && <p className="muted">No sessions yet.</p>}
    </nav>
  );
}
