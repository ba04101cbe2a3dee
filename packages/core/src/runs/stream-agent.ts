import { releaseLock } from '../locks/take-lock.js';
import type { RunEvent, RunEvents, RunResult } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { commitRun } from './commit.js';
import { type PreparedRun, prepareRun, type RunRequest } from './prepare.js';
import { observedModel } from './run-observer.js';
import { streamWithFallback } from './stream-fallback.js';
import type { RunSpan } from './telemetry.js';

/**
 * A streamed run: prepares it (failures throw here), then returns its events, which drive
 * `streamText` and the commit as they are read. Closing the iteration early, even before reading
 * it, aborts the model call and releases the session's lock.
 */
export async function streamAgent(settings: ServiceSettings, request: RunRequest): Promise<RunEvents> {
  return streamPrepared(settings, await prepareRun(settings, request), request.signal);
}

/**
 * The events of a prepared run (a new one, or a turn resumed after approvals), which drive the model
 * call and the commit as they are read; closing them early releases the session's lock.
 */
export function streamPrepared(
  settings: ServiceSettings,
  run: PreparedRun,
  signal: AbortSignal | undefined,
): RunEvents {
  const events = closable(tracedEvents(settings, run, signal), () => releaseLock(run.lease));
  return Object.assign(events, { session_id: run.session.sessionId });
}

/**
 * `events`, with `return()` before the first `next()` calling `release`: a generator's own `finally`
 * never runs if it was never started.
 */
function closable(events: AsyncGenerator<RunEvent>, release: () => Promise<void>): AsyncIterable<RunEvent> {
  let started = false;
  const iterator: AsyncIterableIterator<RunEvent> = {
    next: () => {
      started = true;
      return events.next();
    },
    return: async (value?: unknown) => {
      if (!started) {
        started = true;
        await release();
      }
      return events.return(value as never);
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** The run's events in its own span, started when the events are first read. */
async function* tracedEvents(
  settings: ServiceSettings,
  run: PreparedRun,
  signal: AbortSignal | undefined,
): AsyncGenerator<RunEvent> {
  const span = settings.tracer.startRun({ 'agenthost.agent_id': run.agent.agent_id, 'agenthost.stream': true });
  try {
    for await (const event of runEvents(settings, run, signal, span)) {
      if (event.type === 'done') span.succeed(event.result);
      yield event;
    }
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** A run's last events: one `approval-request` per tool call that waits for approval, then `done`. */
export function resultEvents(result: RunResult): RunEvent[] {
  return [
    ...result.pending_approvals.map((a): RunEvent => ({ type: 'approval-request', ...a })),
    { type: 'done', result },
  ];
}

/** The model call's events, then `done` once the turn is stored; the lock is released at the end or on close. */
async function* runEvents(
  settings: ServiceSettings,
  run: PreparedRun,
  signal: AbortSignal | undefined,
  span: RunSpan,
): AsyncGenerator<RunEvent> {
  const stopped = new AbortController();
  // The run of the model that answered (or failed last), and how long its call took.
  let answered = run;
  let providerMs = 0;
  try {
    const onFailure = (failed: PreparedRun, ms: number) => {
      answered = failed;
      providerMs = ms;
    };
    const call = yield* streamWithFallback(settings, run, { signal, span, stopped: stopped.signal, onFailure });
    ({ run: answered, providerMs } = call);
    const result = await commitRun(settings, answered, call.answer, signal);
    settings.observer.succeeded(observedModel(answered), result.metadata.tokens, providerMs);
    yield* resultEvents(result);
  } catch (error) {
    settings.observer.failed(observedModel(answered), error, providerMs);
    throw error;
  } finally {
    stopped.abort(new Error('The stream was closed before the run finished'));
    await releaseLock(run.lease);
  }
}
