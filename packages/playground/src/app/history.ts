import type { StoredMessage } from './api';
import type { PlaygroundMessage } from './message-view';

/** A session's stored messages as chat messages, to show as the history of a reopened session. */
export function historyMessages(sessionId: string, stored: StoredMessage[]): PlaygroundMessage[] {
  return stored.map((message, index) => ({
    id: `${sessionId}-${index}`,
    role: message.role,
    parts: [{ type: 'text', text: message.content }],
  }));
}
