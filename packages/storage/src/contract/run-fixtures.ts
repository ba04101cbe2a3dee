import assert from 'node:assert/strict';
import type { RunEventRecord, RunResult, RunStore, StoredRun } from '@agenthost/core';
import { unique } from './fixtures.js';

/** One run-store contract case, on two stores of one backend (the same store when they cannot share one). */
export type RunCase = (a: RunStore, b: RunStore) => Promise<void>;

/** Run-store contract cases by name. */
export type RunCases = Record<string, RunCase>;

/** A limit no case reaches unless it means to. */
export const NO_LIMIT = { maxInFlight: 1_000 };

/** A new queued run of a new account and agent, its lease a minute ahead; `overrides` replace fields. */
export function newRun(overrides: Partial<StoredRun> = {}): StoredRun {
  const now = Date.now();
  return {
    run_id: unique('run'),
    account_id: unique('acct'),
    agent_id: unique('agt'),
    session_id: unique('session'),
    status: 'queued',
    created_at: new Date(now).toISOString(),
    started_at: null,
    finished_at: null,
    result: null,
    error: null,
    last_event_id: 0,
    cancel_requested: false,
    owner: 'server-a',
    lease_until: now + 60_000,
    events_expire_at: null,
    expires_at: null,
    ...overrides,
  };
}

/** A completed run's result, with the nested shapes a real one has (an empty list, nested JSON, Unicode). */
export function runResult(sessionId: string): RunResult {
  return {
    output: 'Done ✨ «ok» 日本語 🚀',
    session_id: sessionId,
    status: 'completed',
    pending_approvals: [],
    metadata: {
      model: 'echo',
      agent_version: 2,
      tool_used: 'search',
      tools_used: ['search', 'calc'],
      tokens: { prompt: 12, completion: 7, total: 19 },
      omitted_messages: 0,
    },
  };
}

/** `n` events from id `from` on: text, a tool call with nested input, its result, and so on. */
export function someEvents(from: number, n: number): RunEventRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const id = from + i;
    switch (i % 3) {
      case 0:
        return { id, event: { type: 'text-delta', delta: `part ${id} ✨ "quoted" \\ \n` } };
      case 1:
        return {
          id,
          event: { type: 'tool-call', tool_call_id: `call-${id}`, tool_name: 'search', input: { q: ['a', { b: [] }] } },
        };
      default:
        return { id, event: { type: 'tool-result', tool_call_id: `call-${id}`, tool_name: 'search', output: null } };
    }
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sleeps until the clock reads `time` (epoch ms). */
export async function until(time: number): Promise<void> {
  await sleep(Math.max(0, time - Date.now()));
}

/** Waits up to `ms` for `check` to hold; fails with `what` otherwise. */
export async function eventually(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** The creation time of a run, in epoch ms. */
export const createdMs = (run: StoredRun) => Date.parse(run.created_at);
