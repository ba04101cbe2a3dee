import { releaseLock } from '../locks/take-lock.js';
import type { RunResult } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { commitRun } from './commit.js';
import { withFallback } from './fallback.js';
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
  let answered = run;
  try {
    const call = await withFallback(
      settings,
      run,
      (attempt) => generateAnswer(settings, attempt, signal),
      (failed, ms) => {
        answered = failed;
        providerMs = ms;
      },
    );
    ({ run: answered, providerMs } = call);
    const result = await commitRun(settings, answered, call.answer, signal);
    settings.observer.succeeded(observedModel(answered), result.metadata.tokens, providerMs);
    return result;
  } catch (error) {
    settings.observer.failed(observedModel(answered), error, providerMs);
    throw error;
  } finally {
    await releaseLock(run.lease);
  }
}
