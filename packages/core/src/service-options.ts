import type { TelemetryOptions } from 'ai';
import { type IdGenerator, randomId } from './ids.js';
import { inProcessLocks } from './locks/in-process-locks.js';
import type { AgentStore } from './ports/agent-store.js';
import type { LockProvider } from './ports/lock-provider.js';
import type { ModelProvider } from './ports/model-provider.js';
import type { RunStore } from './ports/run-store.js';
import type { ToolProvider } from './ports/tool-provider.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from './run-limits.js';
import { InProcessRunStore } from './runs/background/in-process-run-store.js';
import { type RunObservation, type RunObserver, runObserver } from './runs/run-observer.js';
import { modelCallTelemetry, noRunTracer, openTelemetryRunTracer, type RunTracer } from './runs/telemetry.js';
import { type SchemaSandbox, sharedSchemaSandbox } from './structured-output/schema-sandbox.js';
import { staticTools } from './tools/static-tools.js';

/** Options of `AgentService`. */
export interface AgentServiceOptions {
  /** Where agents and conversations live. */
  store: AgentStore;
  /** Which model names agents may use, and the AI SDK model behind each. */
  models: ModelProvider;
  /** Which tool integrations agents may use (default: none). */
  tools?: ToolProvider;
  /** The clock (default `() => new Date()`). */
  now?: () => Date;
  /** Makes agent and session ids (default: 128 random bits, base64url). */
  generateId?: IdGenerator;
  /** How many earlier messages a run reads at most, before fitting them to the context budget (default 200). */
  historyLimit?: number;
  /** How long one run may wait for the provider, retries included, in ms (default 60 000). */
  providerTimeoutMs?: number;
  /** How often a retryable provider failure is retried, with backoff (default 2). */
  maxRetries?: number;
  /** How many model steps a run with a tool may take (default 5). */
  maxToolSteps?: number;
  /** Longest run input, in characters (default 32 000). */
  maxInputChars?: number;
  /** Most tokens a model may answer with in one step (default 4 096). */
  maxOutputTokens?: number;
  /** Context windows by model name, in tokens, over what the model's provider says (its catalog). */
  contextWindows?: Record<string, number>;
  /**
   * Serialises runs of one session. The default works within one process; servers that share a
   * store must share a lock provider too (see `@agenthost/storage`).
   */
  locks?: LockProvider;
  /** How long a run waits for an earlier run of the same session before a `ConflictError`, in ms (default 30 000). */
  runWaitMs?: number;
  /** Told about every run that reached its model call (for metrics). Must not throw. */
  onRunFinished?: (observation: RunObservation) => void;
  /**
   * OpenTelemetry: each run becomes a span (`agenthost.run`, with model, ids, tokens and outcome), and
   * the AI SDK's telemetry of its model calls is on, through `integrations` (for spans,
   * `new OpenTelemetry()` of `@ai-sdk/otel`; without any, those the app registered with the SDK's
   * `registerTelemetry`). Off unless enabled, and then the AI SDK records nothing of agenthost's runs
   * either, whatever the app registered. Spans go to whatever tracer provider the application
   * registered. Inputs and outputs are recorded only with `recordContent`.
   */
  telemetry?: { enabled: boolean; recordContent?: boolean; integrations?: TelemetryOptions['integrations'] };
  /**
   * Where clients' `json_format` schemas are compiled and answers checked against them: worker
   * threads with deadlines and memory caps (default: the process's shared sandbox).
   */
  schemaSandbox?: SchemaSandbox;
  /**
   * Where background runs, their events and the signals between servers live (default: in this
   * process). Servers that share a store must share this too (see `@agenthost/storage`'s `openStore`).
   * Given, the service watches for runs whose server was lost from the start; otherwise from its first
   * background run.
   */
  runs?: RunStore;
  /** Limits of background runs. */
  backgroundRuns?: BackgroundRunLimits;
}

/** Limits of background runs (`AgentService.startRun`). */
export interface BackgroundRunLimits {
  /** Background runs one account may have queued or running at once, on all servers (default 16). */
  maxInFlight?: number;
  /** How long a finished run's events can still be read, in ms (default 3 600 000: an hour). */
  eventRetentionMs?: number;
  /** How long a finished run can still be read, in ms (default 604 800 000: a week); at least `eventRetentionMs`. */
  recordRetentionMs?: number;
  /**
   * The lease of a running run, in ms (default 10 000): the server running it renews it every third
   * of that, and stops the run the moment it runs out unrenewed. Other servers take a run for lost
   * once its lease ran out more than a third of a lease ago (a grace for clocks that differ), and
   * mark it `failed` (`server_lost`) at their next sweep (every half lease): within 11/6 of a lease
   * of its server's death.
   */
  leaseMs?: number;
  /**
   * Event readings (`runEvents`, each SSE stream of a run's events) one account may have open at
   * once on this server (default 64); one more is refused with `RateLimitedError`.
   */
  maxEventReaders?: number;
}

/** The options of a service, checked, with their defaults: what the service and its runs read. */
export interface ServiceSettings {
  store: AgentStore;
  models: ModelProvider;
  tools: ToolProvider;
  now: () => Date;
  generateId: IdGenerator;
  /** Even, so that the oldest message a run reads is always a user message. */
  historyLimit: number;
  providerTimeoutMs: number;
  maxRetries: number;
  maxToolSteps: number;
  maxInputChars: number;
  maxOutputTokens: number;
  contextWindows: Record<string, number>;
  locks: LockProvider;
  runWaitMs: number;
  sandbox: SchemaSandbox;
  observer: RunObserver;
  /** The spans of runs ({@link noRunTracer} when telemetry is off). */
  tracer: RunTracer;
  /** The AI SDK's telemetry settings of each model call. */
  modelCallTelemetry: TelemetryOptions;
  /** Where background runs live: the one given, or one in this process. */
  runs: RunStore;
  /** Whether `runs` was given (the service watches it for lost runs from the start), or made here. */
  runsGiven: boolean;
  backgroundRuns: Required<BackgroundRunLimits>;
}

/** Longest delay a Node timer can hold; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function positiveInteger(
  name: string,
  value: number | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1 || v > max)
    throw new TypeError(`AgentService: ${name} must be a whole number from 1 to ${max}, got ${value}`);
  return v;
}

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`AgentService: ${name} must be a non-negative integer`);
  return v;
}

/**
 * Checks a service's options and fills in the defaults.
 * @throws TypeError naming the option that is missing or out of range.
 */
export function serviceSettings(options: AgentServiceOptions): ServiceSettings {
  if (!options?.store) throw new TypeError('AgentService: options.store is required');
  if (!options.models) throw new TypeError('AgentService: options.models is required');
  const historyLimit = positiveInteger('historyLimit', options.historyLimit, 200);
  const telemetry = options.telemetry?.enabled ? options.telemetry : undefined;
  return {
    store: options.store,
    models: options.models,
    tools: options.tools ?? staticTools(),
    now: options.now ?? (() => new Date()),
    generateId: options.generateId ?? randomId,
    historyLimit: historyLimit - (historyLimit % 2),
    providerTimeoutMs: positiveInteger('providerTimeoutMs', options.providerTimeoutMs, 60_000, MAX_TIMER_MS),
    maxRetries: nonNegativeInteger('maxRetries', options.maxRetries, 2),
    maxToolSteps: positiveInteger('maxToolSteps', options.maxToolSteps, 5),
    maxInputChars: positiveInteger('maxInputChars', options.maxInputChars, 32_000),
    maxOutputTokens: positiveInteger('maxOutputTokens', options.maxOutputTokens, DEFAULT_MAX_OUTPUT_TOKENS),
    contextWindows: { ...options.contextWindows },
    locks: options.locks ?? inProcessLocks(),
    runWaitMs: positiveInteger('runWaitMs', options.runWaitMs, 30_000, MAX_TIMER_MS),
    sandbox: options.schemaSandbox ?? sharedSchemaSandbox(),
    observer: runObserver(options.models, options.onRunFinished),
    tracer: telemetry ? openTelemetryRunTracer() : noRunTracer,
    modelCallTelemetry: modelCallTelemetry(telemetry),
    runs: options.runs ?? new InProcessRunStore(),
    runsGiven: options.runs !== undefined,
    backgroundRuns: backgroundRunLimits(options.backgroundRuns ?? {}),
  };
}

/**
 * The limits of background runs, checked, with their defaults. A run's record must outlive its
 * events: a reader who comes after the events went gets the last event rebuilt from the record.
 */
function backgroundRunLimits(limits: BackgroundRunLimits): Required<BackgroundRunLimits> {
  const checked = {
    maxInFlight: positiveInteger('backgroundRuns.maxInFlight', limits.maxInFlight, 16),
    eventRetentionMs: positiveInteger('backgroundRuns.eventRetentionMs', limits.eventRetentionMs, 3_600_000),
    recordRetentionMs: positiveInteger('backgroundRuns.recordRetentionMs', limits.recordRetentionMs, 604_800_000),
    leaseMs: positiveInteger('backgroundRuns.leaseMs', limits.leaseMs, 10_000, MAX_TIMER_MS),
    maxEventReaders: positiveInteger('backgroundRuns.maxEventReaders', limits.maxEventReaders, 64),
  };
  if (checked.recordRetentionMs < checked.eventRetentionMs)
    throw new TypeError(
      `AgentService: backgroundRuns.recordRetentionMs (${checked.recordRetentionMs}) must not be less than backgroundRuns.eventRetentionMs (${checked.eventRetentionMs})`,
    );
  return checked;
}
