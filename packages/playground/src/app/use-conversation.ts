import { useState } from 'react';
import { agentPath, api, type StoredMessage } from './api';
import { historyMessages } from './history';
import type { PlaygroundMessage } from './message-view';

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

  /** Reads a stored session and shows it, to be continued. */
  async function open(agentId: string, sessionId: string) {
    try {
      const path = `${agentPath(agentId)}/sessions/${encodeURIComponent(sessionId)}`;
      const stored = await api<{ messages: StoredMessage[] }>(apiKey, path);
      start(sessionId, historyMessages(sessionId, stored.messages));
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return { conversation, current, setCurrent, error, start, open };
}
