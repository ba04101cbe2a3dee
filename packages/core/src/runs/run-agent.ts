import { releaseLock } from '../locks/take-lock.js';
import type { RunResult } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { commitRun } from './commit.js';
import { generateAnswer } from './model-call.js';
import { type PreparedRun, prepareRun, type RunRequest } from './prepare.js';
import { observedModel } from './run-observer.js';
import { traced } from './telemetry.js';

/**
 * A plain run, in one span: prepare → `generateText` → commit, telling the observer how the model
 * call went, and releasing the session's lock whatever happens.
 */
export function runAgent(settings: ServiceSettings, request: RunRequest): Promise<RunResult> {
  const span = settings.tracer.startRun({ 'agenthost.agent_id': request.agentId });
  return traced(span, async () => runPrepared(settings, await prepareRun(settings, request), request.signal));
}

/**
 * The model call and the commit of a prepared run (a new one, or a turn resumed after approvals),
 * telling the observer how the call went; releases the session's lock whatever happens.
 */
export async function runPrepared(
  settings: ServiceSettings,
  run: PreparedRun,
  signal: AbortSignal | undefined,
): Promise<RunResult> {
  // Set when the model call settles, which comes before anything the observer is told.
  let providerMs = 0;
  try {
    const started = performance.now();
    const answer = await generateAnswer(settings, run, signal).finally(() => {
      providerMs = performance.now() - started;
    });
    const result = await commitRun(settings, run, answer, signal);
    settings.observer.succeeded(observedModel(run), result.metadata.tokens, providerMs);
    return result;
  } catch (error) {
    settings.observer.failed(observedModel(run), error, providerMs);
    throw error;
  } finally {
    await releaseLock(run.lease);
  }
}
