import { generateText, isStepCount } from 'ai';
import { AgentHostError } from '../errors/agenthost-error.js';
import { StorageUnavailableError } from '../errors/storage-unavailable-error.js';
import { providerFailure } from '../provider-failures.js';
import type { MessagePart } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { type CallAbort, callAbort } from './call-abort.js';
import { refuseDownloads, unsupportedInput } from './input-refusals.js';
import { responseParts, unansweredApprovals } from './message-parts.js';
import type { PreparedRun } from './prepare.js';
import { withRunContext } from './run-context.js';

/** What a model call answered: the text (or JSON text) to store, what it did as parts, the tokens. */
export interface ModelAnswer {
  output: string;
  /** The call's response messages as parts: tool calls, results, approval requests and answers, text. */
  parts: MessagePart[];
  usage: { inputTokens: number | undefined; outputTokens: number | undefined };
}

/** The AI SDK settings of a run's model call, plain or streamed. */
export function callSettings(settings: ServiceSettings, run: PreparedRun) {
  return {
    model: run.model,
    instructions: run.config.instruction,
    messages: run.messages,
    ...(run.tools && { tools: run.tools, stopWhen: isStepCount(settings.maxToolSteps) }),
    ...(run.toolSet.approval && { toolApproval: run.toolSet.approval }),
    ...(run.output && { output: run.output }),
    ...modelSettings(settings, run),
    maxRetries: settings.maxRetries,
    experimental_download: refuseDownloads(run),
    ...(run.onToolRun && { onToolExecutionStart: run.onToolRun }),
    telemetry: settings.modelCallTelemetry,
  };
}

/** The agent's sampling settings, and its answer's bound (the server's when it sets none). */
function modelSettings(settings: ServiceSettings, { config }: PreparedRun) {
  return {
    maxOutputTokens: config.max_output_tokens ?? settings.maxOutputTokens,
    ...(config.temperature != null && { temperature: config.temperature }),
    ...(config.top_p != null && { topP: config.top_p }),
  };
}

/** Stops a model call at the provider timeout, on the caller's abort, or when the session's lease is lost. */
export function runCallAbort(
  settings: ServiceSettings,
  run: PreparedRun,
  signal: AbortSignal | undefined,
  ...more: AbortSignal[]
): CallAbort {
  return callAbort(settings.providerTimeoutMs, [...more, signal, run.lease?.signal]);
}

/** Runs `work` as a model call of `run`: code it calls (a model of agenthost's own) sees the run's context. */
export function inRunContext<T>(settings: ServiceSettings, run: PreparedRun, work: () => T): T {
  return withRunContext({ accountId: run.session.accountId, sandbox: settings.sandbox }, work);
}

/**
 * The plain model call of a run (`generateText`).
 * @throws what {@link callFailure} makes of a failure.
 */
export async function generateAnswer(
  settings: ServiceSettings,
  run: PreparedRun,
  signal: AbortSignal | undefined,
): Promise<ModelAnswer> {
  const abort = runCallAbort(settings, run, signal);
  let result: Awaited<ReturnType<typeof generateText>>;
  try {
    const call = () => generateText({ ...callSettings(settings, run), abortSignal: abort.signal });
    result = await inRunContext(settings, run, call);
  } catch (error) {
    throw callFailure(error, abort.timedOut, signal, run);
  } finally {
    abort.release();
  }
  const parts = responseParts(result.responseMessages);
  // A call that stopped for approvals has no answer yet: its JSON comes when the turn goes on.
  const answered = run.output && unansweredApprovals(parts).length === 0;
  return { output: answered ? JSON.stringify(result.output) : result.text, parts, usage: result.usage };
}

/** What a failed model call becomes: the caller's abort, a lost lease, or a provider failure. */
export function callFailure(
  error: unknown,
  timedOut: boolean,
  signal: AbortSignal | undefined,
  run: PreparedRun,
): unknown {
  // Ours, possibly wrapped by the AI SDK (a sandbox refusal while checking the answer, say).
  const own = ownError(error);
  if (own) return own;
  if (signal?.aborted) return signal.reason ?? error;
  if (run.lease?.signal.aborted)
    return new StorageUnavailableError({
      message: 'Lost the session lock during the run; nothing was stored',
      cause: error,
    });
  return unsupportedInput(error, run) ?? providerFailure(error, { timedOut, provider: run.model.provider });
}

/** The first agenthost error in an error's chain of causes, if any. */
function ownError(error: unknown): AgentHostError | undefined {
  for (
    let e = error, depth = 0;
    e !== null && typeof e === 'object' && depth < 8;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (AgentHostError.isInstance(e)) return e;
  }
  return undefined;
}
