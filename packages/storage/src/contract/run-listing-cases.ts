import assert from 'node:assert/strict';
import type { RunStore, StoredRun } from '@agenthost/core';
import { unique } from './fixtures.js';
import { createdMs, NO_LIMIT, newRun, type RunCases } from './run-fixtures.js';

/** Every page of an agent's runs from the first on, `limit` at a time, checking each page's cursor. */
async function allPages(store: RunStore, account: string, agent: string, limit: number): Promise<StoredRun[][]> {
  const pages: StoredRun[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await store.listRuns(account, agent, { limit, ...(before !== undefined && { before }) });
    assert.ok(page.runs.length > 0, `page ${pages.length + 1} is empty`);
    // A page holds `limit` runs, more only to take every run of its last millisecond.
    const last = page.runs.at(-1)!;
    for (const run of page.runs.slice(limit)) assert.equal(createdMs(run), createdMs(page.runs[limit - 1]!));
    pages.push(page.runs);
    if (page.next === undefined) return pages;
    assert.equal(page.next, createdMs(last), 'a page ends at the creation time of its last run');
    assert.ok(pages.length < 50, 'the pages do not end');
    before = page.next;
  }
}

/** Runs of one agent: five a second apart, and three created in one millisecond between them. */
function agentRuns(account: string, agent: string): StoredRun[] {
  const t = Date.parse('2026-03-01T10:00:00.000Z');
  const at = (ms: number) => new Date(t + ms).toISOString();
  return [
    ...[0, 1_000, 2_000, 3_000, 4_000].map((ms) =>
      newRun({ account_id: account, agent_id: agent, created_at: at(ms) }),
    ),
    ...[1, 2, 3].map(() => newRun({ account_id: account, agent_id: agent, created_at: at(2_500) })),
  ];
}

/** The order a list must have: creation time, newest first (runs of one millisecond in any order). */
function assertNewestFirst(runs: StoredRun[]): void {
  for (let i = 1; i < runs.length; i++)
    assert.ok(createdMs(runs[i - 1]!) >= createdMs(runs[i]!), `run ${i} is newer than the one before it`);
}

/** Cases on listing an agent's runs. */
export function runListingCases(): RunCases {
  return {
    'an agent lists its own runs newest first, a page at a time, never splitting a millisecond': async (a, b) => {
      const [account, agent] = [unique('acct'), unique('agt')];
      const runs = agentRuns(account, agent);
      // Stored out of order, some finished, beside another agent's and another account's runs.
      for (const i of [3, 0, 6, 4, 1, 7, 2, 5]) await (i % 2 ? a : b).createRun(runs[i]!, NO_LIMIT);
      await a.updateRun(account, runs[1]!.run_id, ['queued'], { status: 'cancelled' });
      runs[1]!.status = 'cancelled';
      await a.createRun(newRun({ account_id: account }), NO_LIMIT);
      await a.createRun(newRun({ agent_id: agent }), NO_LIMIT);
      const byId = new Map(runs.map((run) => [run.run_id, run]));
      for (const limit of [1, 2, 3, 100]) {
        const listed = (await allPages(b, account, agent, limit)).flat();
        assertNewestFirst(listed);
        assert.deepStrictEqual(
          listed.map((run) => byId.get(run.run_id)),
          listed,
          `limit ${limit}: a listed run is not one of the agent's, or differs from what was stored`,
        );
        assert.equal(new Set(listed.map((run) => run.run_id)).size, runs.length, `limit ${limit}: runs listed`);
      }
    },

    'a page holding the runs of one millisecond takes all of them': async (a) => {
      const [account, agent] = [unique('acct'), unique('agt')];
      const runs = agentRuns(account, agent);
      for (const run of runs) await a.createRun(run, NO_LIMIT);
      // Newest first: 4 s, 3 s, then the three of 2.5 s; a page of 3 ends inside that millisecond.
      const first = await a.listRuns(account, agent, { limit: 3 });
      assert.equal(first.runs.length, 5);
      assert.deepStrictEqual(
        first.runs.slice(2).map(createdMs),
        [1, 2, 3].map(() => Date.parse('2026-03-01T10:00:02.500Z')),
      );
      const rest = await a.listRuns(account, agent, { limit: 3, before: first.next! });
      assert.deepStrictEqual(
        rest.runs.map((run) => run.created_at),
        ['2026-03-01T10:00:02.000Z', '2026-03-01T10:00:01.000Z', '2026-03-01T10:00:00.000Z'],
      );
      assert.equal(rest.next, undefined);
    },

    'listing before a time lists only the runs created before it': async (a) => {
      const [account, agent] = [unique('acct'), unique('agt')];
      for (const run of agentRuns(account, agent)) await a.createRun(run, NO_LIMIT);
      const page = await a.listRuns(account, agent, { limit: 10, before: Date.parse('2026-03-01T10:00:02.500Z') });
      assert.deepStrictEqual(
        page.runs.map((run) => run.created_at),
        ['2026-03-01T10:00:02.000Z', '2026-03-01T10:00:01.000Z', '2026-03-01T10:00:00.000Z'],
      );
      assert.equal(page.next, undefined);
    },

    'an agent without runs lists none': async (a) => {
      const page = await a.listRuns(unique('acct'), unique('agt'), { limit: 10 });
      assert.deepStrictEqual(page.runs, []);
      assert.equal(page.next, undefined);
    },
  };
}
