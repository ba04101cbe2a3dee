import { useState } from 'react';
import { ApiError, agentPath, api, type PendingApproval, type StoredMessage } from './api';
import { historyMessages } from './history';
import type { PlaygroundMessage } from './message-view';

/** One page of a stored session. */
interface SessionPage {
  messages: StoredMessage[];
  pending_approvals?: PendingApproval[];
  next_cursor: string | null;
}

/** The conversation shown: a new `round` remounts the chat with its session and history. */
export interface Conversation {
  round: number;
  sessionId: string | undefined;
  history: PlaygroundMessage[];
}

/**
 * Which conversation the chat shows, and the session highlighted in the sidebar (which a new
 * conversation learns from its first reply, without remounting the chat).
 */
export function useConversation(apiKey: string) {
  const [conversation, setConversation] = useState<Conversation>({ round: 0, sessionId: undefined, history: [] });
  const [current, setCurrent] = useState<string>();
  const [error, setError] = useState<string>();

  /** Shows a new conversation, or a stored one with its history. */
  function start(sessionId?: string, history: PlaygroundMessage[] = []) {
    setError(undefined);
    setCurrent(sessionId);
    setConversation((c) => ({ round: c.round + 1, sessionId, history }));
  }

  /**
   * Reads a stored session and shows it, to be continued. With `orNew`, a session not stored yet (its
   * first turn still running) shows as a new conversation under its id.
   */
  async function open(agentId: string, sessionId: string, options: { orNew?: boolean } = {}) {
    try {
      const path = `${agentPath(agentId)}/sessions/${encodeURIComponent(sessionId)}`;
      // Every page, oldest first, so the newest turns are shown before the conversation goes on.
      const messages: StoredMessage[] = [];
      let pending: PendingApproval[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100';
        const page = await api<SessionPage>(apiKey, path + query);
        messages.push(...page.messages);
        pending = page.pending_approvals ?? [];
        cursor = page.next_cursor;
      } while (cursor);
      // Tool calls that wait for approval show after the stored turns, to be answered.
      start(sessionId, historyMessages(sessionId, messages, pending));
    } catch (failure) {
      if (options.orNew && failure instanceof ApiError && failure.status === 404) start(sessionId);
      else setError((failure as Error).message);
    }
  }

  return { conversation, current, setCurrent, error, start, open };
}
