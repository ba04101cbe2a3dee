import type { AgentService, BackgroundRun, RunAgentInput, RunEventRecord } from '@agenthost/core';
import { type ErrorEnvelope, refusal } from './envelope.js';
import { type HttpErrorCode, STATUS_BY_CODE } from './error-codes.js';
import { bodyInput, type FrameOptions, type FrameSource, runLog, type SseFrame } from './handlers.js';
import { runInput } from './http-bodies.js';
import { errorResponse, INTERNAL_ERROR_MESSAGE } from './http-errors.js';

/**
 * A background run's `error` event as the error envelope a client gets: the code's status from the
 * code-to-status table (`cancelled` 409, `server_lost` 503); a code the table does not know is an
 * `internal` 500 with the generic message.
 */
export function runErrorEnvelope(code: string, message: string): ErrorEnvelope {
  const known = Object.hasOwn(STATUS_BY_CODE, code) && code !== 'internal';
  const { body } = known ? refusal(code as HttpErrorCode, message) : refusal('internal', INTERNAL_ERROR_MESSAGE);
  return body as ErrorEnvelope;
}

/** What the frames of a background run need: the reading's signal and, for the request that started it, its log. */
export interface ReadingOptions extends FrameOptions {
  signal?: AbortSignal | undefined;
  /** The run's agent and input, for the request log of `done` (the request that started the run). */
  log?: { agentId: string; input: string };
}

/** One stored event as a frame with the event's own id; `done` carries the run's result, `error` the envelope. */
function frameOf(record: RunEventRecord, options: ReadingOptions): SseFrame {
  const { id, event } = record;
  if (event.type === 'error') return { id, event: 'error', data: runErrorEnvelope(event.code, event.message) };
  if (event.type === 'done') {
    const { log } = options;
    return { id, event: 'done', data: event.result, ...(log && { log: runLog(log.agentId, log.input, event.result) }) };
  }
  const { type, ...data } = event;
  return { id, event: type, data };
}

/**
 * A background run's events as server-sent event frames, each with its id in the run. When reading
 * fails (not the run: the reading, such as a store that cannot be reached) an `error` frame without
 * an id ends the stream; a client can resume from the last id it got. The client going away ends
 * only the reading.
 */
export async function* backgroundFrames(
  records: () => Promise<AsyncIterable<RunEventRecord>>,
  options: ReadingOptions,
): AsyncGenerator<SseFrame> {
  try {
    for await (const record of await records()) yield frameOf(record, options);
  } catch (error) {
    if (options.signal?.aborted) return;
    const { response } = errorResponse(error, options);
    if (response.status >= 500) options.onServerError(error, response.status);
    yield { event: 'error', data: response.body };
  }
}

/** The `run` frame (without an id), then the run's events as {@link backgroundFrames}. */
async function* startedRunFrames(
  service: AgentService,
  accountId: string,
  run: BackgroundRun,
  options: ReadingOptions,
): AsyncGenerator<SseFrame> {
  yield { event: 'run', data: run, log: { agent_id: run.agent_id, session_id: run.session_id } };
  const { signal } = options;
  yield* backgroundFrames(() => service.runEvents(accountId, run.run_id, signal ? { signal } : {}), options);
}

/**
 * A run started with `"background": true` and streamed: the run object first, then its events as
 * they are written. The run goes on when the client goes away. Failures before the run starts
 * (unknown agent, bad input, the in-flight limit) throw, so they are answered as JSON.
 */
export const streamBackgroundRun: FrameSource = async (service, { accountId, params, body, signal }, options) => {
  const agentId = params.agentId ?? '';
  const input = (await runInput(service, accountId, agentId, body)) as RunAgentInput;
  const run = await service.startRun(accountId, agentId, input);
  return startedRunFrames(service, accountId, run, { ...options, signal, log: { agentId, input: bodyInput(body) } });
};
