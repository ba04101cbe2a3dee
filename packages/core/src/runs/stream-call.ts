import { streamText, type TextStreamPart, type ToolSet } from 'ai';
import type { MessagePart, RunEvent } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { DENIED, executedPart, responseParts, unansweredApprovals } from './message-parts.js';
import { callSettings, inRunContext, type ModelAnswer } from './model-call.js';
import type { PreparedRun } from './prepare.js';
import { unfinishedStep } from './stream-finish.js';
import type { RunSpan } from './telemetry.js';

type StreamPart = TextStreamPart<ToolSet>;

/** The event a run reports for a part of the model's stream, if any (text only when the answer is not JSON). */
function runEvent(part: StreamPart, structured: boolean): RunEvent | undefined {
  switch (part.type) {
    case 'text-delta':
      return structured ? undefined : { type: 'text-delta', delta: part.text };
    case 'tool-call':
      return { type: 'tool-call', tool_call_id: part.toolCallId, tool_name: part.toolName, input: part.input };
    case 'tool-result':
      return { type: 'tool-result', tool_call_id: part.toolCallId, tool_name: part.toolName, output: part.output };
    case 'tool-error':
      return {
        type: 'tool-error',
        tool_call_id: part.toolCallId,
        tool_name: part.toolName,
        error: part.error instanceof Error ? part.error.message : String(part.error),
      };
    case 'tool-output-denied':
      return { type: 'tool-error', tool_call_id: part.toolCallId, tool_name: part.toolName, error: DENIED };
    default:
      return undefined;
  }
}

/** What a part of the model's stream says went wrong, if anything. */
function partFailure(part: StreamPart, signal: AbortSignal | undefined): unknown {
  if (part.type === 'finish-step') return unfinishedStep(part);
  if (part.type === 'error') return part.error;
  if (part.type === 'abort') return signal?.reason ?? new Error('aborted');
  return undefined;
}

/**
 * Starts the streamed model call of a run (`streamText`, its spans children of the run's span) and
 * returns its events: text deltas and tool activity as they come, then the answer. Iterating throws
 * the first failure the stream reported (a provider error, an unfinished step, an abort), unclassified.
 */
export function streamAnswer(
  settings: ServiceSettings,
  run: PreparedRun,
  abortSignal: AbortSignal,
  { signal, span }: { signal: AbortSignal | undefined; span: RunSpan },
): AsyncGenerator<RunEvent, ModelAnswer> {
  let failure: unknown;
  const start = () =>
    streamText({
      ...callSettings(settings, run),
      abortSignal,
      onError: ({ error }) => {
        failure ??= error;
      },
    });
  const result = inRunContext(settings, run, () => span.within(start));
  async function* events(): AsyncGenerator<RunEvent, ModelAnswer> {
    // Tools run before the first step (the approved calls of a resumed turn) are reported only here.
    const before: MessagePart[] = [];
    let stepped = false;
    for await (const part of result.stream) {
      if (part.type === 'start-step') stepped = true;
      else if (!stepped) before.push(...executedPart(part, run.earlier?.parts ?? []));
      const event = runEvent(part, run.output !== undefined);
      if (event) yield event;
      failure ??= partFailure(part, signal);
    }
    if (failure !== undefined) throw failure;
    const steps = (await result.steps).flatMap((step) => step.response.messages);
    const parts = [...before, ...responseParts(steps)];
    // A call that stopped for approvals has no answer yet: its JSON comes when the turn goes on.
    const answered = run.output && unansweredApprovals(parts).length === 0;
    const output = answered ? JSON.stringify(await result.output) : await result.text;
    return { output, parts, usage: await result.usage };
  }
  return events();
}
