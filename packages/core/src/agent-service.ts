import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { generateText, isStepCount, type ModelMessage, streamText, type TelemetryOptions, type ToolSet } from 'ai';
import { DEFAULT_CONTEXT_WINDOW, estimateTokens, fitHistory } from './context-window.js';
import { describeModels, describeTools, infoOf, offeredModelsText, type ToolInfo } from './discovery.js';
import { AgentHostError } from './errors/agenthost-error.js';
import { ConflictError } from './errors/conflict-error.js';
import { InvalidInputError } from './errors/invalid-input-error.js';
import { NotFoundError } from './errors/not-found-error.js';
import { StorageUnavailableError } from './errors/storage-unavailable-error.js';
import { type IdGenerator, randomId } from './ids.js';
import { inProcessLocks } from './locks/in-process-locks.js';
import { estimatedCost } from './models/cost.js';
import type { AgentStore, SessionRef } from './ports/agent-store.js';
import type { Lease, LockProvider } from './ports/lock-provider.js';
import type { ChatModel, ModelInfo, ModelProvider } from './ports/model-provider.js';
import type { ToolProvider } from './ports/tool-provider.js';
import { providerFailure } from './provider-failures.js';
import type {
  AgentConfig,
  AgentList,
  AgentRecord,
  RunEvent,
  RunResult,
  SessionList,
  SessionMessage,
  SessionWithMessages,
} from './records.js';
import { withRunContext } from './run-context.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from './run-limits.js';
import {
  type CreateAgentInput,
  createAgentInputSchema,
  type RunAgentInput,
  runAgentInputSchema,
  SESSION_ID_PATTERN,
  type UpdateAgentInput,
  updateAgentInputSchema,
} from './schemas.js';
import { unfinishedStep } from './stream-finish.js';
import { outputFormat } from './structured-output/output-format.js';
import { type SchemaSandbox, sharedSchemaSandbox } from './structured-output/schema-sandbox.js';
import { staticTools } from './tools/static-tools.js';
import { parseInput } from './validation.js';

/** Options of {@link AgentService}. */
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
}

/** What a finished run reports to an observer (for metrics): never its input or output. */
export interface RunObservation {
  model: string;
  /** `ok`, or the error code the run failed with (`provider_error`, `conflict`, ...). */
  outcome: string;
  tokens?: { prompt: number; completion: number };
  /** How long the model call took, in ms (absent when the run failed before calling the model). */
  providerMs?: number;
}

/** Options of one run. */
export interface RunOptions {
  /** Aborts the run; nothing is stored for an aborted run. */
  signal?: AbortSignal;
}

/** Options of a paged list of agents. */
export interface AgentListOptions extends PageOptions {
  /** `asc`: oldest first (default); `desc`: newest first. */
  order?: 'asc' | 'desc';
}

/** Options of a paged read. */
export interface PageOptions {
  /** Page size: 1 to 100 (default 20 sessions, 100 messages). */
  limit?: number;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
}

interface PreparedRun {
  agent: AgentRecord;
  model: ChatModel;
  /** What is known of the model (its price, for the run's cost). */
  info: ModelInfo;
  session: SessionRef;
  input: string;
  messages: ModelMessage[];
  omitted: number;
  tools: ToolSet | undefined;
  output: Awaited<ReturnType<typeof outputFormat>>;
  lease: Lease | undefined;
  startedAt: string;
}

/** Longest id a caller can name: ids the service makes are far shorter. */
const MAX_ID_LENGTH = 128;
/** Tokens set aside for the definitions of an agent's tools, per tool. */
const TOKENS_PER_TOOL = 500;

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

function requireAccount(accountId: string): void {
  if (typeof accountId !== 'string' || accountId.length === 0)
    throw new TypeError('AgentService: accountId must be a non-empty string');
}

function field(name: string, message: string): InvalidInputError {
  return new InvalidInputError({ details: { [name]: { message, path: [name] } } });
}

function pageLimit(limit: number | undefined, fallback: number): number {
  const v = limit ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1 || v > 100) throw field('limit', 'limit must be a whole number from 1 to 100');
  return v;
}

const encodeCursor = (position: number) => Buffer.from(`p${position}`).toString('base64url');

function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const match = /^p(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw field('cursor', 'cursor is not one this server gave out');
  return Number(match[1]);
}

/**
 * Creates, lists, fetches and runs agents, and reads their conversations, each call scoped to the
 * account the caller names. Transport-neutral: it throws {@link AgentHostError}s with codes, never
 * HTTP statuses.
 *
 * @example
 * const service = new AgentService({ store: new MemoryStore(), models: echoModels() });
 * const agent = await service.createAgent('acme', { name: 'Support', instruction: 'Be brief.', model: 'echo' });
 * const { output, session_id } = await service.runAgent('acme', agent.agent_id, { input: 'Hello' });
 */
export class AgentService {
  readonly #store: AgentStore;
  readonly #models: ModelProvider;
  readonly #tools: ToolProvider;
  readonly #now: () => Date;
  readonly #generateId: IdGenerator;
  readonly #historyLimit: number;
  readonly #providerTimeoutMs: number;
  readonly #maxRetries: number;
  readonly #maxToolSteps: number;
  readonly #maxInputChars: number;
  readonly #maxOutputTokens: number;
  readonly #contextWindows: Record<string, number>;
  readonly #locks: LockProvider;
  readonly #runWaitMs: number;
  readonly #observe: (observation: RunObservation) => void;
  readonly #telemetry: NonNullable<AgentServiceOptions['telemetry']> | undefined;
  /**
   * The AI SDK's telemetry of model calls: on with the given integrations, and off explicitly
   * otherwise (the SDK records every call, content included, once any app registers an integration).
   */
  readonly #aiTelemetry: TelemetryOptions;
  readonly #sandbox: SchemaSandbox;
  #listed: Set<string> | undefined;

  constructor(options: AgentServiceOptions) {
    if (!options?.store) throw new TypeError('AgentService: options.store is required');
    if (!options.models) throw new TypeError('AgentService: options.models is required');
    this.#store = options.store;
    this.#models = options.models;
    this.#tools = options.tools ?? staticTools();
    this.#now = options.now ?? (() => new Date());
    this.#generateId = options.generateId ?? randomId;
    // An even window keeps whole turns: the oldest message read is always a user message.
    this.#historyLimit = positiveInteger('historyLimit', options.historyLimit, 200);
    this.#historyLimit -= this.#historyLimit % 2;
    this.#providerTimeoutMs = positiveInteger('providerTimeoutMs', options.providerTimeoutMs, 60_000, MAX_TIMER_MS);
    this.#maxRetries = options.maxRetries ?? 2;
    if (!Number.isSafeInteger(this.#maxRetries) || this.#maxRetries < 0)
      throw new TypeError('AgentService: maxRetries must be a non-negative integer');
    this.#maxToolSteps = positiveInteger('maxToolSteps', options.maxToolSteps, 5);
    this.#maxInputChars = positiveInteger('maxInputChars', options.maxInputChars, 32_000);
    this.#maxOutputTokens = positiveInteger('maxOutputTokens', options.maxOutputTokens, DEFAULT_MAX_OUTPUT_TOKENS);
    this.#contextWindows = { ...options.contextWindows };
    this.#locks = options.locks ?? inProcessLocks();
    this.#runWaitMs = positiveInteger('runWaitMs', options.runWaitMs, 30_000, MAX_TIMER_MS);
    this.#telemetry = options.telemetry?.enabled ? options.telemetry : undefined;
    this.#aiTelemetry = this.#telemetry
      ? {
          isEnabled: true,
          functionId: 'agenthost.run',
          recordInputs: this.#telemetry.recordContent === true,
          recordOutputs: this.#telemetry.recordContent === true,
          ...(this.#telemetry.integrations !== undefined && { integrations: this.#telemetry.integrations }),
        }
      : { isEnabled: false };
    this.#sandbox = options.schemaSandbox ?? sharedSchemaSandbox();
    this.#observe = (observation) => {
      try {
        options.onRunFinished?.(observation);
      } catch {
        // An observer's failure must not fail a run.
      }
    };
  }

  /** The model names agents may use. */
  listModels(): readonly string[] {
    return this.#models.listModels();
  }

  /** The models agents may use, with their provider, context window and price where known. */
  describeModels(): ModelInfo[] {
    return describeModels(this.#models);
  }

  /** The tool integration names agents may use. */
  listTools(): readonly string[] {
    return this.#tools.listTools();
  }

  /** The tool integrations agents may use, with what each does. */
  describeTools(): ToolInfo[] {
    return describeTools(this.#tools);
  }

  /**
   * The model of a run as metrics name it: its full name when the server lists it, else
   * `<provider>/other`, since an endpoint that takes any model id would give clients labels without bound.
   */
  #metricModel(run: PreparedRun): string {
    this.#listed ??= new Set(this.#models.listModels());
    return this.#listed.has(run.info.name) || this.#listed.has(run.agent.config.model)
      ? run.info.name
      : `${run.info.provider}/other`;
  }

  #unsupported(model: string): string {
    return `Unsupported model "${model}". Name a model as provider/model; offered: ${offeredModelsText(this.#models)}`;
  }

  /**
   * Validates and stores a new agent for `accountId`.
   * @throws InvalidInputError for a missing, blank or mistyped field, an unsupported model or an unknown tool.
   */
  async createAgent(accountId: string, input: CreateAgentInput): Promise<AgentRecord> {
    requireAccount(accountId);
    const config = parseInput(createAgentInputSchema, input);
    this.#checkOffered(config);
    const agentId = this.#generateId('agent');
    const now = this.#now().toISOString();
    const agent: AgentRecord = {
      agent_id: agentId,
      name: config.name,
      config: {
        agent_id: agentId,
        name: config.name,
        instruction: config.instruction,
        model: config.model,
        tool: config.tool,
        component: config.component,
      },
      created_at: now,
      updated_at: now,
    };
    await this.#store.createAgent(accountId, agent);
    return agent;
  }

  /** The account's agents, oldest first. */
  async listAgents(accountId: string): Promise<AgentRecord[]> {
    requireAccount(accountId);
    return this.#store.listAgents(accountId);
  }

  /**
   * One page of the account's agents, oldest or newest first.
   * @throws InvalidInputError for a bad `limit`, `cursor` or `order`.
   */
  async listAgentsPage(accountId: string, options: AgentListOptions = {}): Promise<AgentList> {
    requireAccount(accountId);
    const limit = pageLimit(options.limit, 20);
    const order = options.order ?? 'asc';
    if (order !== 'asc' && order !== 'desc') throw field('order', 'order must be "asc" or "desc"');
    const after = decodeCursor(options.cursor);
    const page = await this.#store.listAgentsPage(accountId, { limit, order, ...(after !== undefined && { after }) });
    return { agents: page.agents, next_cursor: page.next === null ? null : encodeCursor(page.next) };
  }

  /**
   * Changes some of an agent's configuration; fields not given keep their value. Validated like
   * create. Concurrent updates of one agent take turns (on every server sharing the locks), so none
   * is lost. `updated_at` moves, `created_at` stays.
   * @throws NotFoundError; InvalidInputError (also for a body with no field to change); ConflictError.
   */
  async updateAgent(accountId: string, agentId: string, input: UpdateAgentInput): Promise<AgentRecord> {
    await this.getAgent(accountId, agentId);
    const body = (input ?? {}) as Record<string, unknown>;
    const { config: nested, ...top } = body;
    const flat =
      nested !== null && typeof nested === 'object' && !Array.isArray(nested)
        ? { ...(nested as Record<string, unknown>), ...top }
        : body;
    const changes = Object.fromEntries(
      Object.entries(parseInput(updateAgentInputSchema, flat)).filter(([, v]) => v !== undefined),
    ) as Partial<AgentConfig>;
    if (Object.keys(changes).length === 0)
      throw field('request', 'Give at least one of name, instruction, model, tool, component');
    const lease = await this.#locks
      .acquire(`agent:${JSON.stringify([accountId, agentId])}`, { waitMs: this.#runWaitMs })
      .catch((error: unknown) => {
        throw AgentHostError.isInstance(error) && error.code === 'conflict'
          ? new ConflictError({ message: 'The agent is being changed; retry', cause: error })
          : error;
      });
    try {
      const current = await this.getAgent(accountId, agentId);
      const config: AgentConfig = { ...current.config, ...changes };
      this.#checkOffered(config);
      // Strictly later than the last change, even when the clock has not moved (or moved back).
      const updated = new Date(Math.max(this.#now().getTime(), Date.parse(current.updated_at) + 1)).toISOString();
      const agent: AgentRecord = { ...current, name: config.name, config, updated_at: updated };
      if (!(await this.#store.updateAgent(accountId, agent))) throw new NotFoundError({ message: 'Agent not found' });
      return agent;
    } finally {
      await this.#release(lease);
    }
  }

  /**
   * Deletes an agent and all of its sessions.
   * @throws NotFoundError when it does not exist or belongs to another account.
   */
  async deleteAgent(accountId: string, agentId: string): Promise<void> {
    await this.getAgent(accountId, agentId);
    if (!(await this.#store.deleteAgent(accountId, agentId))) throw new NotFoundError({ message: 'Agent not found' });
  }

  /** Throws when a configuration names a model or a tool this service does not offer. */
  #checkOffered(config: { model: string; tool: string | null }): void {
    if (!this.#models.languageModel(config.model)) {
      throw field('model', this.#unsupported(config.model));
    }
    if (config.tool !== null && !this.#tools.tools(config.tool)) {
      const supported = this.listTools();
      const message = `Unknown tool "${config.tool}". ${supported.length ? `Supported tools: ${supported.join(', ')}` : 'This server offers no tools'}`;
      throw new InvalidInputError({ message, details: { tool: { message, path: ['tool'] } } });
    }
  }

  /**
   * One agent of the account.
   * @throws NotFoundError when it does not exist or belongs to another account (the same error).
   */
  async getAgent(accountId: string, agentId: string): Promise<AgentRecord> {
    requireAccount(accountId);
    // Ids this service makes are short; anything long cannot name an agent, so the store is spared it.
    const agent =
      typeof agentId === 'string' && agentId.length > 0 && agentId.length <= MAX_ID_LENGTH
        ? await this.#store.getAgent(accountId, agentId)
        : undefined;
    if (!agent) throw new NotFoundError({ message: 'Agent not found' });
    return agent;
  }

  /**
   * Runs an agent on a text input. The model sees the agent's instruction as the system prompt, the
   * session's earlier turns in order (as many of the newest as fit the model's context budget), then
   * the input. The input and the reply are stored together, and only when the model call succeeded.
   *
   * Runs of one session (a given `session_id`) take turns: a run waits for the one before it, up to
   * `runWaitMs`, so each sees the turns before it and no turn is lost.
   *
   * @throws NotFoundError for an unknown agent; InvalidInputError for bad input;
   *   ConflictError when an earlier run of the session holds it past `runWaitMs`;
   *   ProviderError when the provider fails (`provider_error`), rate limits (`provider_rate_limited`)
   *   or times out (`provider_timeout`); StorageUnavailableError when the store or the lock service fails.
   */
  async runAgent(
    accountId: string,
    agentId: string,
    input: RunAgentInput,
    options: RunOptions = {},
  ): Promise<RunResult> {
    if (!this.#telemetry) return this.#runAgent(accountId, agentId, input, options);
    return trace
      .getTracer('agenthost')
      .startActiveSpan(
        'agenthost.run',
        { kind: SpanKind.INTERNAL, attributes: { 'agenthost.agent_id': agentId } },
        async (span) => {
          try {
            const result = await this.#runAgent(accountId, agentId, input, options);
            finishSpan(span, result);
            return result;
          } catch (error) {
            failSpan(span, error);
            throw error;
          } finally {
            span.end();
          }
        },
      );
  }

  async #runAgent(accountId: string, agentId: string, input: RunAgentInput, options: RunOptions): Promise<RunResult> {
    const run = await this.#prepare(accountId, agentId, input, options.signal);
    const started = performance.now();
    let providerMs: number | undefined;
    try {
      const timeout = AbortSignal.timeout(this.#providerTimeoutMs);
      let result: Awaited<ReturnType<typeof generateText>>;
      try {
        const call = () =>
          generateText({
            ...this.#callSettings(run),
            abortSignal: this.#abortSignal(timeout, options.signal, run.lease),
          });
        result = await withRunContext({ accountId: run.session.accountId, sandbox: this.#sandbox }, call);
      } catch (error) {
        throw this.#callFailure(error, timeout, options.signal, run);
      } finally {
        providerMs = performance.now() - started;
      }
      const output = run.output ? JSON.stringify(result.output) : result.text;
      const calledTool = result.steps.some((step) => step.toolCalls.length > 0);
      const answer = await this.#commit(run, output, calledTool, result.usage, options.signal);
      this.#observe({ model: this.#metricModel(run), outcome: 'ok', tokens: answer.metadata.tokens, providerMs });
      return answer;
    } catch (error) {
      this.#observe({
        model: this.#metricModel(run),
        outcome: AgentHostError.isInstance(error) ? error.code : 'aborted',
        ...(providerMs !== undefined && { providerMs }),
      });
      throw error;
    } finally {
      await this.#release(run.lease);
    }
  }

  /**
   * Runs an agent like {@link runAgent}, reporting text deltas and tool activity as they happen. The
   * promise settles once the run has started (input checked, agent found, session lock taken), so
   * those failures throw here; failures after that throw from the iteration. Iterate to the end, or
   * break out (which aborts the model call): either way the session's lock is released, and a run
   * that did not reach `done` stores nothing.
   */
  async streamAgent(
    accountId: string,
    agentId: string,
    input: RunAgentInput,
    options: RunOptions = {},
  ): Promise<AsyncIterable<RunEvent>> {
    const run = await this.#prepare(accountId, agentId, input, options.signal);
    const events = this.#stream(run, options.signal);
    let started = false;
    // A generator's own `finally` never runs if it was never started, so `return()` before the first
    // `next()` must release the session's lock itself.
    const iterator: AsyncIterableIterator<RunEvent> = {
      next: () => {
        started = true;
        return events.next();
      },
      return: async (value?: unknown) => {
        if (!started) {
          started = true;
          await this.#release(run.lease);
        }
        return events.return(value as never);
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  async *#stream(run: PreparedRun, signal: AbortSignal | undefined): AsyncGenerator<RunEvent> {
    const span = this.#telemetry
      ? trace.getTracer('agenthost').startSpan('agenthost.run', {
          attributes: { 'agenthost.agent_id': run.agent.agent_id, 'agenthost.stream': true },
        })
      : undefined;
    try {
      for await (const event of this.#streamEvents(run, signal, span)) {
        if (event.type === 'done' && span) finishSpan(span, event.result);
        yield event;
      }
    } catch (error) {
      if (span) failSpan(span, error);
      throw error;
    } finally {
      span?.end();
    }
  }

  async *#streamEvents(
    run: PreparedRun,
    signal: AbortSignal | undefined,
    span: Span | undefined,
  ): AsyncGenerator<RunEvent> {
    const stopped = new AbortController();
    const timeout = AbortSignal.timeout(this.#providerTimeoutMs);
    const started = performance.now();
    try {
      let failure: unknown;
      let calledTool = false;
      const start = () =>
        streamText({
          ...this.#callSettings(run),
          abortSignal: AbortSignal.any([stopped.signal, this.#abortSignal(timeout, signal, run.lease)]),
          onError: ({ error }) => {
            failure ??= error;
          },
        });
      // The AI SDK's spans of the model call become children of the run's span.
      const traced = () => (span ? context.with(trace.setSpan(context.active(), span), start) : start());
      const result = withRunContext({ accountId: run.session.accountId, sandbox: this.#sandbox }, traced);
      try {
        for await (const part of result.stream) {
          if (part.type === 'text-delta' && !run.output) yield { type: 'text-delta', delta: part.text };
          else if (part.type === 'tool-call') {
            calledTool = true;
            yield { type: 'tool-call', tool_call_id: part.toolCallId, tool_name: part.toolName, input: part.input };
          } else if (part.type === 'tool-result')
            yield { type: 'tool-result', tool_call_id: part.toolCallId, tool_name: part.toolName, output: part.output };
          else if (part.type === 'tool-error') {
            yield {
              type: 'tool-error',
              tool_call_id: part.toolCallId,
              tool_name: part.toolName,
              error: part.error instanceof Error ? part.error.message : String(part.error),
            };
          } else if (part.type === 'finish-step') failure ??= unfinishedStep(part);
          else if (part.type === 'error') failure ??= part.error;
          else if (part.type === 'abort') failure ??= signal?.reason ?? new Error('aborted');
        }
        if (failure !== undefined) throw failure;
        const output = run.output ? JSON.stringify(await result.output) : await result.text;
        const usage = await result.usage;
        const providerMs = performance.now() - started;
        const answer = await this.#commit(run, output, calledTool, usage, signal);
        this.#observe({ model: this.#metricModel(run), outcome: 'ok', tokens: answer.metadata.tokens, providerMs });
        yield { type: 'done', result: answer };
      } catch (error) {
        const failed = this.#callFailure(error, timeout, signal, run);
        this.#observe({
          model: this.#metricModel(run),
          outcome: AgentHostError.isInstance(failed) ? failed.code : 'aborted',
          providerMs: performance.now() - started,
        });
        throw failed;
      }
    } finally {
      stopped.abort(new Error('The stream was closed before the run finished'));
      await this.#release(run.lease);
    }
  }

  /**
   * The account's sessions of an agent, newest first, a page at a time.
   * @throws NotFoundError for an unknown agent; InvalidInputError for a bad `limit` or `cursor`.
   */
  async listSessions(accountId: string, agentId: string, options: PageOptions = {}): Promise<SessionList> {
    await this.getAgent(accountId, agentId);
    const limit = pageLimit(options.limit, 20);
    const before = decodeCursor(options.cursor);
    const page = await this.#store.listSessions(accountId, agentId, { limit, ...(before !== undefined && { before }) });
    return { sessions: page.sessions, next_cursor: page.next === null ? null : encodeCursor(page.next) };
  }

  /**
   * A session and one page of its messages, oldest first.
   * @throws NotFoundError for an unknown agent or session; InvalidInputError for a bad `limit` or `cursor`.
   */
  async getSession(
    accountId: string,
    agentId: string,
    sessionId: string,
    options: PageOptions = {},
  ): Promise<SessionWithMessages> {
    const session = await this.#sessionRef(accountId, agentId, sessionId);
    const limit = pageLimit(options.limit, 100);
    const offset = decodeCursor(options.cursor) ?? 0;
    const info = await this.#store.getSession(session);
    if (!info) throw new NotFoundError({ message: 'Session not found' });
    const messages = await this.#store.readMessages(session, { offset, limit });
    const next = offset + messages.length;
    return { ...info, messages, next_cursor: next < info.message_count ? encodeCursor(next) : null };
  }

  /**
   * Deletes a session and its messages. Waits for a run of the session in progress, like a run does.
   * @throws NotFoundError for an unknown agent or session; ConflictError when a run holds the session past `runWaitMs`.
   */
  async deleteSession(accountId: string, agentId: string, sessionId: string): Promise<void> {
    const session = await this.#sessionRef(accountId, agentId, sessionId);
    const lease = await this.#lockSession(session, undefined);
    try {
      if (!(await this.#store.deleteSession(session))) throw new NotFoundError({ message: 'Session not found' });
    } finally {
      await this.#release(lease);
    }
  }

  async #sessionRef(accountId: string, agentId: string, sessionId: string): Promise<SessionRef> {
    await this.getAgent(accountId, agentId);
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId))
      throw new NotFoundError({ message: 'Session not found' });
    return { accountId, agentId, sessionId };
  }

  async #prepare(
    accountId: string,
    agentId: string,
    input: RunAgentInput,
    signal: AbortSignal | undefined,
  ): Promise<PreparedRun> {
    const agent = await this.getAgent(accountId, agentId);
    const run = parseInput(runAgentInputSchema, input);
    if (run.input.length > this.#maxInputChars)
      throw field('input', `input must be at most ${this.#maxInputChars} characters`);
    const output = await outputFormat({
      jsonMode: run.json_mode ?? undefined,
      jsonFormat: run.json_format ?? undefined,
      accountId,
      maxOutputTokens: this.#maxOutputTokens,
      sandbox: this.#sandbox,
      ...(signal && { signal }),
    });
    const model = this.#resolveModel(agent);
    const tools = agent.config.tool === null ? undefined : this.#tools.tools(agent.config.tool);
    const session: SessionRef = { accountId, agentId, sessionId: run.session_id ?? this.#generateId('session') };

    const info = infoOf(this.#models, agent.config.model);
    const window = this.#contextWindows[agent.config.model] ?? info.context_window ?? DEFAULT_CONTEXT_WINDOW;
    const reserved =
      this.#maxOutputTokens +
      estimateTokens(agent.config.instruction) +
      estimateTokens(run.input) +
      Object.keys(tools ?? {}).length * TOKENS_PER_TOOL;
    if (reserved > window) {
      throw field(
        'input',
        `input is too long for the context window of ${agent.config.model} (${window} tokens, ${this.#maxOutputTokens} kept for the answer)`,
      );
    }

    // A session id the server just made is known to nobody else, so only given ids need the lock.
    const lease = run.session_id ? await this.#lockSession(session, signal) : undefined;
    try {
      let history: SessionMessage[] = [];
      let total = 0;
      if (run.session_id) {
        history = await this.#store.readMessages(session, { last: this.#historyLimit });
        total =
          history.length === this.#historyLimit
            ? ((await this.#store.getSession(session))?.message_count ?? history.length)
            : history.length;
      }
      const fitted = fitHistory(history, window - reserved);
      return {
        agent,
        model,
        info,
        session,
        input: run.input,
        messages: [...fitted.sent.map(toModelMessage), { role: 'user', content: run.input }],
        omitted: total - fitted.sent.length,
        tools,
        output,
        lease,
        startedAt: this.#now().toISOString(),
      };
    } catch (error) {
      await this.#release(lease);
      throw error;
    }
  }

  #callSettings(run: PreparedRun) {
    return {
      model: run.model,
      instructions: run.agent.config.instruction,
      messages: run.messages,
      ...(run.tools && { tools: run.tools, stopWhen: isStepCount(this.#maxToolSteps) }),
      ...(run.output && { output: run.output }),
      maxOutputTokens: this.#maxOutputTokens,
      maxRetries: this.#maxRetries,
      telemetry: this.#aiTelemetry,
    };
  }

  #abortSignal(timeout: AbortSignal, signal: AbortSignal | undefined, lease: Lease | undefined): AbortSignal {
    return AbortSignal.any([timeout, ...(signal ? [signal] : []), ...(lease ? [lease.signal] : [])]);
  }

  /** What a failed model call becomes: the caller's abort, a lost lease, or a provider failure. */
  #callFailure(error: unknown, timeout: AbortSignal, signal: AbortSignal | undefined, run: PreparedRun): unknown {
    // Ours, possibly wrapped by the AI SDK (a sandbox refusal while checking the answer, say).
    const own = ownError(error);
    if (own) return own;
    if (signal?.aborted) return signal.reason ?? error;
    if (run.lease?.signal.aborted)
      return new StorageUnavailableError({
        message: 'Lost the session lock during the run; nothing was stored',
        cause: error,
      });
    return providerFailure(error, { timedOut: timeout.aborted, provider: run.model.provider });
  }

  async #commit(
    run: PreparedRun,
    output: string,
    calledTool: boolean,
    usage: { inputTokens: number | undefined; outputTokens: number | undefined },
    signal: AbortSignal | undefined,
  ): Promise<RunResult> {
    signal?.throwIfAborted();
    if (run.lease?.signal.aborted)
      throw new StorageUnavailableError({ message: 'Lost the session lock during the run; nothing was stored' });
    await this.#store.appendMessages(run.session, [
      { role: 'user', content: run.input, created_at: run.startedAt },
      { role: 'assistant', content: output, created_at: this.#now().toISOString() },
    ]);
    const prompt = usage.inputTokens ?? 0;
    const completion = usage.outputTokens ?? 0;
    const cost = estimatedCost(run.info, { prompt, completion });
    return {
      output,
      session_id: run.session.sessionId,
      metadata: {
        model: run.agent.config.model,
        tool_used: calledTool ? run.agent.config.tool : null,
        tokens: { prompt, completion, total: prompt + completion },
        omitted_messages: run.omitted,
        ...(cost !== undefined && { cost }),
      },
    };
  }

  async #lockSession(session: SessionRef, signal: AbortSignal | undefined): Promise<Lease> {
    try {
      return await this.#locks.acquire(
        `run:${JSON.stringify([session.accountId, session.agentId, session.sessionId])}`,
        {
          waitMs: this.#runWaitMs,
          ...(signal && { signal }),
        },
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      if (AgentHostError.isInstance(error) && error.code === 'conflict') {
        throw new ConflictError({
          message: 'Another run of this session is still in progress; retry when it has finished',
          cause: error,
        });
      }
      throw error;
    }
  }

  async #release(lease: Lease | undefined): Promise<void> {
    await lease?.release().catch(() => {
      // The lease expires by itself; a failed release only delays the next run of this session.
    });
  }

  #resolveModel(agent: AgentRecord): ChatModel {
    const model = this.#models.languageModel(agent.config.model);
    if (!model) {
      // The agent was created when the model was offered; the server's configuration has changed since.
      throw new InvalidInputError({
        message: `The agent's model "${agent.config.model}" is not offered by this server`,
        details: { model: { message: this.#unsupported(agent.config.model), path: ['model'] } },
      });
    }
    return model;
  }
}

function finishSpan(span: Span, result: RunResult): void {
  span.setAttributes({
    'agenthost.session_id': result.session_id,
    'gen_ai.request.model': result.metadata.model,
    'gen_ai.usage.input_tokens': result.metadata.tokens.prompt,
    'gen_ai.usage.output_tokens': result.metadata.tokens.completion,
    'agenthost.tool_used': result.metadata.tool_used ?? 'none',
    'agenthost.outcome': 'ok',
  });
}

function failSpan(span: Span, error: unknown): void {
  const code = AgentHostError.isInstance(error) ? error.code : 'aborted';
  span.setAttribute('agenthost.outcome', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
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

function toModelMessage(message: SessionMessage): ModelMessage {
  return { role: message.role, content: message.content };
}
