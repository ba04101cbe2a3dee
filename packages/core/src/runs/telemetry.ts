import { context, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { TelemetryOptions } from 'ai';
import { AgentHostError } from '../errors/agenthost-error.js';
import type { RunResult } from '../records.js';

/** The span of one run, as the run pipeline sees it. */
export interface RunSpan {
  /** Runs `work` with this span as the current one, so spans started inside it (the AI SDK's) are its children. */
  within<T>(work: () => T): T;
  /** Records a run that finished: its session, model, tokens, tool and outcome `ok`. */
  succeed(result: RunResult): void;
  /** Records a run that failed: its outcome is the error's code (`aborted` for anything else). */
  fail(error: unknown): void;
  /** Ends the span. */
  end(): void;
}

/** Starts the spans of runs. With telemetry off it is {@link noRunTracer}, so call sites never ask. */
export interface RunTracer {
  startRun(attributes: Record<string, string | boolean>): RunSpan;
}

const noSpan: RunSpan = {
  within: (work) => work(),
  succeed: () => {},
  fail: () => {},
  end: () => {},
};

/** The tracer of a service whose telemetry is off: records nothing, costs nothing. */
export const noRunTracer: RunTracer = { startRun: () => noSpan };

/**
 * Each run becomes an `agenthost.run` span of the OpenTelemetry tracer `getTracer` returns (by default
 * `agenthost` of whatever tracer provider the application registered, looked up at each run so a
 * provider registered after the service was made is used too).
 */
export function openTelemetryRunTracer(getTracer: () => Tracer = () => trace.getTracer('agenthost')): RunTracer {
  return { startRun: (attributes) => openTelemetrySpan(getTracer().startSpan('agenthost.run', { attributes })) };
}

function openTelemetrySpan(span: Span): RunSpan {
  return {
    within: (work) => context.with(trace.setSpan(context.active(), span), work),
    succeed: (result) => {
      span.setAttributes({
        'agenthost.session_id': result.session_id,
        'gen_ai.request.model': result.metadata.model,
        'gen_ai.usage.input_tokens': result.metadata.tokens.prompt,
        'gen_ai.usage.output_tokens': result.metadata.tokens.completion,
        'agenthost.tool_used': result.metadata.tool_used ?? 'none',
        'agenthost.outcome': 'ok',
      });
    },
    fail: (error) => {
      const code = AgentHostError.isInstance(error) ? error.code : 'aborted';
      span.setAttribute('agenthost.outcome', code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    },
    end: () => span.end(),
  };
}

/** Runs `work` in `span`, recording its result or failure, and ends the span. */
export async function traced(span: RunSpan, work: () => Promise<RunResult>): Promise<RunResult> {
  try {
    const result = await span.within(work);
    span.succeed(result);
    return result;
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** The telemetry settings of a service, as its options give them. */
export interface TelemetrySettings {
  enabled: boolean;
  recordContent?: boolean;
  integrations?: TelemetryOptions['integrations'];
}

/**
 * The AI SDK's telemetry of model calls: on with the given integrations, and off explicitly otherwise
 * (the SDK records every call, content included, once any app registers an integration).
 */
export function modelCallTelemetry(telemetry: TelemetrySettings | undefined): TelemetryOptions {
  if (!telemetry?.enabled) return { isEnabled: false };
  return {
    isEnabled: true,
    functionId: 'agenthost.run',
    recordInputs: telemetry.recordContent === true,
    recordOutputs: telemetry.recordContent === true,
    ...(telemetry.integrations !== undefined && { integrations: telemetry.integrations }),
  };
}
