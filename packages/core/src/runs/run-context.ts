import { AsyncLocalStorage } from 'node:async_hooks';
import type { SchemaSandbox } from '../structured-output/schema-sandbox.js';

/** What code called during a run (a model of agenthost's own) may know of the run. */
export interface RunContext {
  /** The account the run acts for. */
  accountId: string;
  /** The sandbox the run's service checks schemas in. */
  sandbox: SchemaSandbox;
}

const current = new AsyncLocalStorage<RunContext>();

/** Runs `work` with `context` as the current run's; the AI SDK's calls made inside it see it too. */
export function withRunContext<T>(context: RunContext, work: () => T): T {
  return current.run(context, work);
}

/** The context of the run in progress, if any (none outside a run, e.g. a model called directly). */
export function runContext(): RunContext | undefined {
  return current.getStore();
}
