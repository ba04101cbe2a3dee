import type { RunStore } from '@agenthost/core';
import { runEndingCases } from './run-ending-cases.js';
import { runEventCases, runSignalCases } from './run-event-cases.js';
import type { RunCases } from './run-fixtures.js';
import { runLifetimeCases } from './run-lifetime-cases.js';
import { runListingCases } from './run-listing-cases.js';
import { inFlightCases, runRecordCases } from './run-record-cases.js';
import type { TestApi } from './storage-contract.js';

/** Options of {@link runStoreContractTests}. */
export interface RunStoreContractOptions {
  /**
   * True when two stores made by `makeStore` share one backend (two servers on one Redis or
   * PostgreSQL): every case then spreads its calls over both, so signals, limits and status checks
   * are checked across them. Otherwise both are the same store.
   */
  shared?: boolean;
  /** Timeout per case in ms (default 30 000). */
  timeout?: number;
}

/** Registers cases as tests of the current describe block, each on stores it closes afterwards. */
function registerRunCases(
  api: TestApi,
  makeStore: () => RunStore | Promise<RunStore>,
  options: RunStoreContractOptions,
  cases: RunCases,
): void {
  for (const [name, run] of Object.entries(cases)) {
    api.test(
      name,
      async () => {
        const a = await makeStore();
        const b = options.shared ? await makeStore() : a;
        try {
          await run(a, b);
        } finally {
          await a.close?.();
          if (b !== a) await b.close?.();
        }
      },
      options.timeout ?? 30_000,
    );
  }
}

/**
 * Registers the run-store contract (the guarantees of the `RunStore` port): records read back as
 * stored and are copies; another account sees and changes nothing; `updateRun` changes a run only
 * from the given statuses, and of concurrent updates exactly one wins; `createRun` never lets an
 * account exceed its in-flight limit, even under concurrency; listing is newest first and pages
 * never repeat, skip or split a millisecond's runs; events read back in order, by id and limit; a
 * finished run takes only its last event, and a change on where the events end is one step with them;
 * signals reach every subscriber of the run, on every store, in order; `expiredRuns` finds lost
 * runs; a finished run's events and record go after their expiry, never before.
 *
 * `makeStore` is called once or twice per case (see {@link RunStoreContractOptions.shared}); the
 * suite closes what it made. Stores of one backend may be shared by all cases: every case uses
 * accounts and runs of its own.
 */
export function runStoreContractTests(
  api: TestApi,
  makeStore: () => RunStore | Promise<RunStore>,
  options: RunStoreContractOptions = {},
): void {
  api.describe('agenthost run store contract', () => {
    for (const cases of [
      runRecordCases(),
      inFlightCases(),
      runListingCases(),
      runEventCases(),
      runEndingCases(),
      runSignalCases(),
      runLifetimeCases(),
    ])
      registerRunCases(api, makeStore, options, cases);
  });
}
