import type { IdGenerator } from '../ids.js';

/** A clock for tests: starts at `start` and moves only when told. */
export interface TestClock {
  (): Date;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
  /** Sets the clock. */
  set(date: Date | string): void;
}

/** A clock that stands still at `start` (default 2026-01-01T00:00:00.000Z) until advanced. */
export function testClock(start: Date | string = '2026-01-01T00:00:00.000Z'): TestClock {
  let t = new Date(start).getTime();
  const clock = (() => new Date(t)) as TestClock;
  clock.advance = (ms) => {
    t += ms;
  };
  clock.set = (date) => {
    t = new Date(date).getTime();
  };
  return clock;
}

/** Ids `agent_1`, `agent_2`, `session_1`, `run_1`, ... for readable assertions. Not for production: they are guessable. */
export function sequentialIds(): IdGenerator {
  const counters = { agent: 0, session: 0, run: 0 };
  return (kind) => `${kind}_${++counters[kind]}`;
}
