import { type Dispatch, type SetStateAction, useEffect, useRef, useState } from 'react';
import { api } from './api';
import {
  type FinishedTurn,
  type FollowedRun,
  loadFollowedRun,
  type RunUpdate,
  reattachRun,
  saveFollowedRun,
  startBackgroundRun,
} from './background-run';
import type { PlaygroundMessage } from './message-view';

/** How many times a stream that broke off is read again (a second apart) before giving up. */
const RETRIES = 5;

/** The chat's messages with the run's two (its input and its answer so far) added or brought up to date. */
function withRun(messages: PlaygroundMessage[], run: FollowedRun, result?: FinishedTurn): PlaygroundMessage[] {
  const answer: PlaygroundMessage = {
    id: `${run.run_id}-answer`,
    role: 'assistant',
    parts: [{ type: 'text', text: result?.output ?? run.text }],
    metadata: { session_id: run.session_id, ...result?.metadata },
  };
  const index = messages.findIndex((m) => m.id === answer.id);
  if (index >= 0) return messages.map((m, i) => (i === index ? answer : m));
  const input: PlaygroundMessage = {
    id: `${run.run_id}-input`,
    role: 'user',
    parts: [{ type: 'text', text: run.input }],
  };
  return [...messages, input, answer];
}

/** What a chat needs to show background runs and be told of their ends. */
interface Options {
  apiKey: string;
  agentId: string;
  sessionId: string | undefined;
  setMessages: Dispatch<SetStateAction<PlaygroundMessage[]>>;
  /** A turn was stored in this session. */
  onTurn: (sessionId: string) => void;
  /** Shows the session as stored (after a reattached run's end, or a turn that waits for approval). */
  onReopen: (sessionId: string) => void;
}

/**
 * Background runs of a chat: `start` sends a message as one (streamed, kept going by the server if
 * the page goes), `cancel` cancels the one running. When the chat opens on the session of the run
 * this browser was following before a reload, it reattaches: it shows the input and the answer so far
 * and reads the events after the last one shown; at the end it shows the session as stored.
 */
export function useBackgroundRun({ apiKey, agentId, sessionId, setMessages, onTurn, onReopen }: Options) {
  const [running, setRunning] = useState<FollowedRun>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const controller = useRef<AbortController>(undefined);
  // The latest callbacks, for a run followed since an earlier render.
  const latest = useRef({ setMessages, onTurn, onReopen });
  latest.current = { setMessages, onTurn, onReopen };

  function show(update: RunUpdate, reattached: boolean) {
    if (update.kind === 'error') {
      setRunning(undefined);
      setError(update.message);
      return;
    }
    const result = update.kind === 'done' ? update.result : undefined;
    latest.current.setMessages((messages) => withRun(messages, update.run, result));
    setRunning(result ? undefined : update.run);
    if (!result) return;
    latest.current.onTurn(result.session_id);
    // A reattached run's turn may already be in the history it was shown after: the store says.
    if (reattached || result.status === 'requires_approval') latest.current.onReopen(result.session_id);
  }

  /** Follows a run until it ends, reading on after the last event shown when the stream breaks off. */
  async function follow(first: (signal: AbortSignal) => Promise<boolean>, reattached: boolean) {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setBusy(true);
    setError(undefined);
    try {
      let ended = await first(abort.signal);
      for (let attempt = 0; !ended && attempt < RETRIES; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const run = loadFollowedRun();
        if (!run || abort.signal.aborted) return;
        ended = await reattachRun(apiKey, run, (update) => show(update, reattached), abort.signal);
      }
      if (!ended) setError('Lost the connection to the background run; reload the page to follow it again');
    } catch (failure) {
      if (abort.signal.aborted) return;
      // Refused, or gone (404: expired, or another account's): nothing left to reattach to.
      if (reattached) saveFollowedRun(undefined);
      setError((failure as Error).message);
      setRunning(undefined);
    } finally {
      if (controller.current === abort) setBusy(false);
    }
  }

  // Reattach once, when this chat shows the session of the run followed before a reload.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only at mount; the chat remounts for another session
  useEffect(() => {
    const stored = loadFollowedRun();
    if (!stored || stored.agent_id !== agentId || stored.session_id !== sessionId) return;
    setMessages((messages) => withRun(messages, stored));
    setRunning(stored);
    void follow((signal) => reattachRun(apiKey, stored, (update) => show(update, true), signal), true);
  }, []);
  useEffect(() => () => controller.current?.abort(), []);

  return {
    /** The run being followed, if any. */
    running,
    /** Whether a run is being started or followed. */
    busy,
    error,
    start(body: { input: string; session_id?: string; version?: number }) {
      void follow(
        (signal) => startBackgroundRun(apiKey, agentId, body, (update) => show(update, false), signal),
        false,
      );
    },
    /** Cancels the run (it then ends with its `cancelled` error, shown as any other). */
    cancel() {
      if (running)
        api(apiKey, `/runs/${encodeURIComponent(running.run_id)}/cancel`, { method: 'POST' }).catch((failure: Error) =>
          setError(failure.message),
        );
    },
  };
}
