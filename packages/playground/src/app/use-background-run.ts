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
import { type FollowOutcome, keepFollowing } from './follow-run';
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
 * this tab was following before a reload, it reattaches: it shows the input, reads the run's events
 * from the first (which rebuilds the answer) and, at the end, shows the session as stored.
 */
export function useBackgroundRun({ apiKey, agentId, sessionId, setMessages, onTurn, onReopen }: Options) {
  const [running, setRunning] = useState<FollowedRun>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const controller = useRef<AbortController>(undefined);
  // The run followed, as last shown: a stream that breaks off is read on from it.
  const followed = useRef<FollowedRun>(undefined);
  // The latest callbacks, for a run followed since an earlier render.
  const latest = useRef({ setMessages, onTurn, onReopen });
  latest.current = { setMessages, onTurn, onReopen };

  function show(update: RunUpdate, reattached: boolean) {
    followed.current = update.kind === 'text' ? update.run : undefined;
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

  /** Shows how following a run came out: a run gone (404) is forgotten; one lost is kept for a reload. */
  function settle(outcome: FollowOutcome) {
    if (outcome.kind === 'ended' || outcome.kind === 'aborted') return;
    if (outcome.kind === 'lost') {
      const cause = outcome.error ? ` (${outcome.error})` : '';
      setError(`Lost the connection to the background run${cause}; reload the page to follow it again`);
      return;
    }
    if (outcome.kind === 'gone') saveFollowedRun(undefined);
    followed.current = undefined;
    setError(outcome.error.message);
    setRunning(undefined);
  }

  /**
   * Follows a run (`initial`, or the one `first` starts) until it ends, reading on after the last
   * event shown when the stream breaks off.
   */
  async function follow(first: (signal: AbortSignal) => Promise<boolean>, reattached: boolean, initial?: FollowedRun) {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    followed.current = initial;
    setBusy(true);
    setError(undefined);
    const onUpdate = (update: RunUpdate) => show(update, reattached);
    const outcome = await keepFollowing({
      first: () => first(abort.signal),
      again: (run) => reattachRun(apiKey, run, onUpdate, abort.signal),
      current: () => followed.current,
      signal: abort.signal,
      retries: RETRIES,
      pauseMs: 1_000,
    });
    settle(outcome);
    if (controller.current === abort) setBusy(false);
  }

  // Reattach once, when this chat shows the session of the run followed before a reload.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only at mount; the chat remounts for another session
  useEffect(() => {
    const saved = loadFollowedRun();
    if (!saved || saved.agent_id !== agentId || saved.session_id !== sessionId) return;
    // Read from the first event: the replay rebuilds the answer (and a run whose events expired
    // gives its end rebuilt, with the whole output).
    const run: FollowedRun = { ...saved, last_event_id: 0, text: '' };
    setMessages((messages) => withRun(messages, run));
    setRunning(run);
    void follow((signal) => reattachRun(apiKey, run, (update) => show(update, true), signal), true, run);
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
