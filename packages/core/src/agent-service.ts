import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { AgentHostError } from './errors/agenthost-error.js';
import { ConflictError } from './errors/conflict-error.js';
import { InvalidInputError } from './errors/invalid-input-error.js';
import { NotFoundError } from './errors/not-found-error.js';
import { providerFailure } from './provider-failures.js';
import { StorageUnavailableError } from './errors/storage-unavailable-error.js';
import { inProcessLocks } from './locks/in-process-locks.js';
import { randomId, type IdGenerator } from './ids.js';
import type { AgentStore, SessionRef } from './ports/agent-store.js';
import type { Lease, LockProvider } from './ports/lock-provider.js';
import type { ChatModel, ModelProvider } from './ports/model-provider.js';
import type { ToolProvider } from './ports/tool-provider.js';
import type { AgentRecord, RunResult, SessionMessage } from './records.js';
import { createAgentInputSchema, runAgentInputSchema, type CreateAgentInput, type RunAgentInput } from './schemas.js';
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
  /** How many earlier messages a run sends to the model at most, newest kept (default 100). */
  historyLimit?: number;
  /** How long one run may wait for the provider, retries included, in ms (default 60 000). */
  providerTimeoutMs?: number;
  /** How often a retryable provider failure is retried (default 2). */
  maxRetries?: number;
  /** How many model steps a run with a tool may take (default 5). */
  maxToolSteps?: number;
  /**
   * Serialises runs of one session. The default works within one process; servers that share a
   * store must share a lock provider too (see `@agenthost/storage`).
   */
  locks?: LockProvider;
  /** How long a run waits for an earlier run of the same session before a `ConflictError`, in ms (default 30 000). */
  runWaitMs?: number;
}

/** Options of one run. */
export interface RunOptions {
  /** Aborts the run; nothing is stored for an aborted run. */
  signal?: AbortSignal;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) throw new TypeError(`AgentService: ${name} must be a positive integer, got ${value}`);
  return v;
}

/** Longest id a caller can name: ids the service makes are far shorter. */
const MAX_ID_LENGTH = 128;

function requireAccount(accountId: string): void {
  if (typeof accountId !== 'string' || accountId.length === 0) throw new TypeError('AgentService: accountId must be a non-empty string');
}

/**
 * Creates, lists, fetches and runs agents, each call scoped to the account the caller names.
 * Transport-neutral: it throws {@link AgentHostError}s with codes, never HTTP statuses.
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
  readonly #locks: LockProvider;
  readonly #runWaitMs: number;

  constructor(options: AgentServiceOptions) {
    if (!options?.store) throw new TypeError('AgentService: options.store is required');
    if (!options.models) throw new TypeError('AgentService: options.models is required');
    this.#store = options.store;
    this.#models = options.models;
    this.#tools = options.tools ?? staticTools();
    this.#now = options.now ?? (() => new Date());
    this.#generateId = options.generateId ?? randomId;
    // An even window keeps whole turns: the oldest message sent is always a user message.
    this.#historyLimit = positiveInteger('historyLimit', options.historyLimit, 100);
    this.#historyLimit -= this.#historyLimit % 2;
    this.#providerTimeoutMs = positiveInteger('providerTimeoutMs', options.providerTimeoutMs, 60_000);
    this.#maxRetries = options.maxRetries ?? 2;
    if (!Number.isSafeInteger(this.#maxRetries) || this.#maxRetries < 0) throw new TypeError('AgentService: maxRetries must be a non-negative integer');
    this.#maxToolSteps = positiveInteger('maxToolSteps', options.maxToolSteps, 5);
    this.#locks = options.locks ?? inProcessLocks();
    this.#runWaitMs = positiveInteger('runWaitMs', options.runWaitMs, 30_000);
  }

  /** The model names agents may use. */
  listModels(): readonly string[] {
    return this.#models.listModels();
  }

  /** The tool integration names agents may use. */
  listTools(): readonly string[] {
    return this.#tools.listTools();
  }

  /**
   * Validates and stores a new agent for `accountId`.
   * @throws InvalidInputError for a missing, blank or mistyped field, an unsupported model or an unknown tool.
   */
  async createAgent(accountId: string, input: CreateAgentInput): Promise<AgentRecord> {
    requireAccount(accountId);
    const config = parseInput(createAgentInputSchema, input);
    if (!this.#models.languageModel(config.model)) {
      const supported = this.listModels().join(', ');
      throw new InvalidInputError({
        details: { model: { message: `Unsupported model "${config.model}". Supported models: ${supported}`, path: ['model'] } },
      });
    }
    if (config.tool !== null && !this.#tools.tools(config.tool)) {
      const supported = this.listTools();
      const list = supported.length ? `Supported tools: ${supported.join(', ')}` : 'This server offers no tools';
      throw new InvalidInputError({
        message: `Unknown tool "${config.tool}". ${list}`,
        details: { tool: { message: `Unknown tool "${config.tool}". ${list}`, path: ['tool'] } },
      });
    }
    const agentId = this.#generateId('agent');
    const now = this.#now().toISOString();
    const agent: AgentRecord = {
      agent_id: agentId,
      name: config.name,
      config: { agent_id: agentId, name: config.name, instruction: config.instruction, model: config.model, tool: config.tool, component: config.component },
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
   * One agent of the account.
   * @throws NotFoundError when it does not exist or belongs to another account (the same error).
   */
  async getAgent(accountId: string, agentId: string): Promise<AgentRecord> {
    requireAccount(accountId);
    // Ids this service makes are short; anything long cannot name an agent, so the store is spared it.
    const agent = typeof agentId === 'string' && agentId.length > 0 && agentId.length <= MAX_ID_LENGTH ? await this.#store.getAgent(accountId, agentId) : undefined;
    if (!agent) throw new NotFoundError({ message: 'Agent not found' });
    return agent;
  }

  /**
   * Runs an agent on a text input. The model sees the agent's instruction as the system prompt, the
   * session's earlier turns in order, then the input. The input and the reply are stored together,
   * and only when the model call succeeded.
   *
   * Runs of one session (a given `session_id`) take turns: a run waits for the one before it, up to
   * `runWaitMs`, so each sees the turns before it and no turn is lost.
   *
   * @throws NotFoundError for an unknown agent; InvalidInputError for bad input;
   *   ConflictError when an earlier run of the session holds it past `runWaitMs`;
   *   ProviderError when the provider fails (`provider_error`) or times out (`provider_timeout`);
   *   StorageUnavailableError when the store or the lock service fails.
   */
  async runAgent(accountId: string, agentId: string, input: RunAgentInput, options: RunOptions = {}): Promise<RunResult> {
    const agent = await this.getAgent(accountId, agentId);
    const run = parseInput(runAgentInputSchema, input);
    const model = this.#resolveModel(agent);
    const session: SessionRef = { accountId, agentId, sessionId: run.session_id ?? this.#generateId('session') };
    // A session id the server just made is known to nobody else, so only given ids need the lock.
    const lease = run.session_id ? await this.#lockSession(session, options.signal) : undefined;
    try {
      return await this.#run(agent, model, session, run.input, Boolean(run.session_id), lease, options.signal);
    } finally {
      await lease?.release().catch(() => {
        // The lease expires by itself; a failed release only delays the next run of this session.
      });
    }
  }

  async #lockSession(session: SessionRef, signal: AbortSignal | undefined): Promise<Lease> {
    try {
      return await this.#locks.acquire(`run:${JSON.stringify([session.accountId, session.agentId, session.sessionId])}`, {
        waitMs: this.#runWaitMs,
        ...(signal && { signal }),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      if (AgentHostError.isInstance(error) && error.code === 'conflict') {
        throw new ConflictError({ message: 'Another run of this session is still in progress; retry when it has finished', cause: error });
      }
      throw error;
    }
  }

  async #run(
    agent: AgentRecord,
    model: ChatModel,
    session: SessionRef,
    input: string,
    continues: boolean,
    lease: Lease | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RunResult> {
    const startedAt = this.#now().toISOString();
    const history = continues ? await this.#store.readMessages(session, { last: this.#historyLimit }) : [];
    const tools = agent.config.tool === null ? undefined : this.#tools.tools(agent.config.tool);

    const timeout = AbortSignal.timeout(this.#providerTimeoutMs);
    const abortSignal = AbortSignal.any([timeout, ...(signal ? [signal] : []), ...(lease ? [lease.signal] : [])]);
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await generateText({
        model,
        system: agent.config.instruction,
        messages: [...history.map(toModelMessage), { role: 'user', content: input }],
        ...(tools && { tools, stopWhen: stepCountIs(this.#maxToolSteps) }),
        maxRetries: this.#maxRetries,
        abortSignal,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      if (lease?.signal.aborted) throw new StorageUnavailableError({ message: 'Lost the session lock during the run; nothing was stored', cause: error });
      throw providerFailure(error, timeout.aborted);
    }
    signal?.throwIfAborted();
    if (lease?.signal.aborted) throw new StorageUnavailableError({ message: 'Lost the session lock during the run; nothing was stored' });

    const output = result.text;
    const calledTool = result.steps.some((step) => step.toolCalls.length > 0);
    const prompt = result.totalUsage.inputTokens ?? 0;
    const completion = result.totalUsage.outputTokens ?? 0;
    await this.#store.appendMessages(session, [
      { role: 'user', content: input, created_at: startedAt },
      { role: 'assistant', content: output, created_at: this.#now().toISOString() },
    ]);
    return {
      output,
      session_id: session.sessionId,
      metadata: {
        model: agent.config.model,
        tool_used: calledTool ? agent.config.tool : null,
        tokens: { prompt, completion, total: prompt + completion },
      },
    };
  }

  #resolveModel(agent: AgentRecord): ChatModel {
    const model = this.#models.languageModel(agent.config.model);
    if (!model) {
      // The agent was created when the model was offered; the server's configuration has changed since.
      throw new InvalidInputError({
        message: `The agent's model "${agent.config.model}" is not offered by this server`,
        details: { model: { message: `Unsupported model "${agent.config.model}". Supported models: ${this.listModels().join(', ')}`, path: ['model'] } },
      });
    }
    return model;
  }
}

function toModelMessage(message: SessionMessage): ModelMessage {
  return { role: message.role, content: message.content };
}
