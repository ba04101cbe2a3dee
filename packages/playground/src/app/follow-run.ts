import { ApiError } from './api';
import type { FollowedRun } from './background-run';

/**
 * How following a run came out: it `ended` (its `done` or `error` event was shown); the page stopped
 * following it (`aborted`); it was `refused` before there was a run to follow; it is `gone` (404: its
 * record expired, or it is another key's account's); or it was `lost`: its stream kept breaking off
 * (or its readings failing) through every retry, `error` the last failure's message if one was thrown.
 */
export type FollowOutcome =
  | { kind: 'ended' }
  | { kind: 'aborted' }
  | { kind: 'refused' | 'gone'; error: Error }
  | { kind: 'lost'; error: string | undefined };

/** What {@link keepFollowing} reads with. */
export interface FollowSteps {
  /** The first reading (the start, or a reattach): resolves with whether the run ended. */
  first: () => Promise<boolean>;
  /** Reads on after the last event of `run` shown: resolves with whether the run ended. */
  again: (run: FollowedRun) => Promise<boolean>;
  /** The run followed, as last shown (`undefined` before its first frame and after its end). */
  current: () => FollowedRun | undefined;
  signal: AbortSignal;
  /** How many times a stream that broke off (or a reading that failed) is read again. */
  retries: number;
  /** The pause before each retry, in ms. */
  pauseMs: number;
}

/**
 * Follows a run until it ends: when its stream breaks off, or a reading fails (anything but a 404,
 * such as a 429 for too many readings or a 503 while the store is unreachable), reads on from the
 * run as last shown, `retries` times, `pauseMs` apart.
 */
export async function keepFollowing(steps: FollowSteps): Promise<FollowOutcome> {
  let failure: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const run = steps.current();
    // A start whose stream broke off before its run frame: no run to read on.
    if (attempt > 0 && !run) return { kind: 'lost', error: failure };
    try {
      if (await (attempt === 0 || !run ? steps.first() : steps.again(run))) return { kind: 'ended' };
    } catch (error) {
      if (steps.signal.aborted) return { kind: 'aborted' };
      if (!steps.current()) return { kind: 'refused', error: error as Error };
      if (error instanceof ApiError && error.status === 404) return { kind: 'gone', error };
      failure = (error as Error).message;
    }
    if (steps.signal.aborted) return { kind: 'aborted' };
    if (attempt === steps.retries) return { kind: 'lost', error: failure };
    await new Promise((resolve) => setTimeout(resolve, steps.pauseMs));
    if (steps.signal.aborted) return { kind: 'aborted' };
  }
}
