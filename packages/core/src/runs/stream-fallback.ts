import type { RunEvent } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { type Answered, fallsBack, runsToTry } from './fallback.js';
import { callFailure, type ModelAnswer, runCallAbort } from './model-call.js';
import type { PreparedRun } from './prepare.js';
import { observedModel } from './run-observer.js';
import { streamAnswer } from './stream-call.js';
import type { RunSpan } from './telemetry.js';

/** What a streamed call with fallbacks needs besides the run. */
export interface StreamAttempts {
  signal: AbortSignal | undefined;
  span: RunSpan;
  /** Aborted when the stream is closed early. */
  stopped: AbortSignal;
  /** Told the run whose call failed last and how long it took, before that failure is thrown. */
  onFailure: (run: PreparedRun, providerMs: number) => void;
}

/**
 * The streamed model call of a run, on the agent's model then on each fallback model while the one
 * before failed with a provider error before any event was passed on (once text or a tool call
 * went to the client, the answer cannot be taken back). Each attempt has its own provider timeout;
 * a failed attempt followed by another is told to the observer as that model's failure. Throws the
 * last failure, classified (`callFailure`).
 */
export async function* streamWithFallback(
  settings: ServiceSettings,
  run: PreparedRun,
  { signal, span, stopped, onFailure }: StreamAttempts,
): AsyncGenerator<RunEvent, Answered<ModelAnswer>> {
  const runs = runsToTry(settings, run);
  let current = runs.next().value as PreparedRun;
  for (;;) {
    const started = performance.now();
    const abort = runCallAbort(settings, current, signal, stopped);
    let emitted = false;
    try {
      const answers = streamAnswer(settings, current, abort.signal, { signal, span });
      try {
        for (let step = await answers.next(); ; step = await answers.next()) {
          if (step.done) return { run: current, answer: step.value, providerMs: performance.now() - started };
          emitted = true;
          yield step.value;
        }
      } finally {
        // Closed early: close the model's stream too (a no-op once it has ended).
        await answers.return(undefined as never);
      }
    } catch (error) {
      const failed = callFailure(error, abort.timedOut, signal, current);
      const providerMs = performance.now() - started;
      const next = !emitted && fallsBack(failed) ? runs.next() : undefined;
      if (!next || next.done) {
        onFailure(current, providerMs);
        throw failed;
      }
      settings.observer.failed(observedModel(current), failed, providerMs);
      current = next.value;
    } finally {
      // The attempt is over: its timer and its listeners go with it.
      abort.release();
    }
  }
}
