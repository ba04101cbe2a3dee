import { agentShape, newAgentConfig, newAgentRecord } from './agents/agent-records.js';
import { findVersion, listVersions } from './agents/agent-versions.js';
import { restoreAgentVersion, updateAgent } from './agents/change-agent.js';
import { findAgent, findSessionRef, requireAccount } from './agents/find-agent.js';
import { matchesMetadata, metadataFilter } from './agents/metadata-filter.js';
import { checkOffered } from './agents/offered.js';
import { describeModels, describeTools, type ToolInfo } from './discovery.js';
import { NotFoundError } from './errors/not-found-error.js';
import { releaseLock } from './locks/take-lock.js';
import { type AgentListOptions, decodeCursor, encodeCursor, listOrder, type PageOptions, pageLimit } from './paging.js';
import type { ModelInfo } from './ports/model-provider.js';
import type {
  AgentList,
  AgentRecord,
  AgentVersion,
  AgentVersionList,
  BackgroundRun,
  RunEventRecord,
  RunEvents,
  RunList,
  RunResult,
  SessionList,
  SessionWithMessages,
} from './records.js';
import { type ApprovalRequest, respondToApproval, streamApprovalResponse } from './runs/approvals.js';
import { BackgroundRuns } from './runs/background/background-runs.js';
import { partsOf } from './runs/message-parts.js';
import { runAgent } from './runs/run-agent.js';
import { lockSession } from './runs/session-lock.js';
import { streamAgent } from './runs/stream-agent.js';
import type {
  ApprovalResponseInput,
  CreateAgentInput,
  HistoryMessage,
  RunAgentInput,
  UpdateAgentInput,
} from './schemas.js';
import { type AgentServiceOptions, type ServiceSettings, serviceSettings } from './service-options.js';

export type { AgentListOptions, PageOptions } from './paging.js';
export type { RunObservation } from './runs/run-observer.js';
export type { AgentServiceOptions, BackgroundRunLimits } from './service-options.js';

/** Options of one run. */
export interface RunOptions {
  /** Aborts the run; nothing is stored for an aborted run. */
  signal?: AbortSignal;
  /**
   * Earlier turns a caller keeps itself (a client that resends its whole conversation each time),
   * oldest first. Used only when the run starts a new session (no `session_id`): the model sees them
   * before the input, as many of the newest as fit the context budget and `historyLimit`, exactly as
   * stored history would be cut. They are not stored: the new session holds this run's turn only.
   * Ignored when `session_id` continues a session, whose stored turns are the history.
   */
  history?: readonly HistoryMessage[];
}

/**
 * Creates, lists, fetches and runs agents, and reads their conversations, each call scoped to the
 * account the caller names. Transport-neutral: it throws {@link AgentHostError}s with codes, never
 * HTTP statuses. A facade: runs go through the pipeline in `runs/` (prepare → model call → commit).
 *
 * @example
 * const service = new AgentService({ store: new MemoryStore(), models: echoModels() });
 * const agent = await service.createAgent('acme', { name: 'Support', instruction: 'Be brief.', model: 'echo' });
 * const { output, session_id } = await service.runAgent('acme', agent.agent_id, { input: 'Hello' });
 */
export class AgentService {
  readonly #settings: ServiceSettings;
  readonly #background: BackgroundRuns;

  /** @throws TypeError for a missing store or models, or an option out of range. */
  constructor(options: AgentServiceOptions) {
    this.#settings = serviceSettings(options);
    this.#background = new BackgroundRuns(this.#settings);
  }

  /** The model names agents may use. */
  listModels(): readonly string[] {
    return this.#settings.models.listModels();
  }

  /** The models agents may use, with their provider, context window and price where known. */
  describeModels(): ModelInfo[] {
    return describeModels(this.#settings.models);
  }

  /** The tool integration names agents may use. */
  listTools(): readonly string[] {
    return this.#settings.tools.listTools();
  }

  /** The tool integrations agents may use, with what each does. */
  describeTools(): ToolInfo[] {
    return describeTools(this.#settings.tools);
  }

  /**
   * Validates and stores a new agent for `accountId`.
   * @throws InvalidInputError for a missing, blank or mistyped field, an unsupported model or an unknown tool.
   */
  async createAgent(accountId: string, input: CreateAgentInput): Promise<AgentRecord> {
    const { store, models, tools, generateId, now, maxOutputTokens } = this.#settings;
    requireAccount(accountId);
    const config = newAgentConfig(input);
    checkOffered(models, tools, config, maxOutputTokens);
    const agent = newAgentRecord(generateId('agent'), config, now());
    await store.createAgent(accountId, agent);
    return agent;
  }

  /**
   * The account's agents, oldest first; with `metadata`, only those whose metadata has every pair.
   * @throws InvalidInputError for a bad `metadata` filter.
   */
  async listAgents(accountId: string, options: { metadata?: Record<string, string> } = {}): Promise<AgentRecord[]> {
    requireAccount(accountId);
    const filter = metadataFilter(options.metadata);
    const agents = (await this.#settings.store.listAgents(accountId)).map(agentShape);
    return filter ? agents.filter((a) => matchesMetadata(a, filter)) : agents;
  }

  /**
   * One page of the account's agents, oldest or newest first; with `metadata`, only those whose
   * metadata has every pair.
   * @throws InvalidInputError for a bad `limit`, `cursor`, `order` or `metadata`.
   */
  async listAgentsPage(accountId: string, options: AgentListOptions = {}): Promise<AgentList> {
    requireAccount(accountId);
    const limit = pageLimit(options.limit, 20);
    const order = listOrder(options.order);
    const after = decodeCursor(options.cursor);
    const metadata = metadataFilter(options.metadata);
    const page = await this.#settings.store.listAgentsPage(accountId, {
      limit,
      order,
      ...(after !== undefined && { after }),
      ...(metadata && { metadata }),
    });
    return { agents: page.agents.map(agentShape), next_cursor: encodeCursor(page.next) };
  }

  /**
   * Changes some of an agent's configuration; fields not given keep their value (`null` clears a
   * setting: a number to its default, a list to none, `metadata` to no pairs; `metadata` is replaced
   * whole). Validated like create. A change makes a new version
   * (`version` + 1, `updated_at` moves, `created_at` stays); an update that changes nothing returns
   * the agent as it is. Concurrent updates of one agent take turns (on every server sharing the
   * locks), so none is lost.
   * @throws NotFoundError; InvalidInputError (also for an input with no field to change); ConflictError.
   */
  async updateAgent(accountId: string, agentId: string, input: UpdateAgentInput): Promise<AgentRecord> {
    return updateAgent(this.#settings, accountId, agentId, input);
  }

  /**
   * An agent's versions, newest first, a page at a time.
   * @throws NotFoundError for an unknown agent; InvalidInputError for a bad `limit` or `cursor`.
   */
  async listAgentVersions(accountId: string, agentId: string, options: PageOptions = {}): Promise<AgentVersionList> {
    const agent = await this.getAgent(accountId, agentId);
    return listVersions(this.#settings.store, accountId, agent, options);
  }

  /**
   * One version of an agent.
   * @throws NotFoundError for an unknown agent, or "Version not found".
   */
  async getAgentVersion(accountId: string, agentId: string, version: number): Promise<AgentVersion> {
    const agent = await this.getAgent(accountId, agentId);
    return findVersion(this.#settings.store, accountId, agent, version);
  }

  /**
   * Makes an earlier version's configuration the agent's current one, as a new version (the agent
   * as it is when that configuration is already the current one). Validated like an update.
   * @throws NotFoundError for an unknown agent or version; InvalidInputError; ConflictError.
   */
  async restoreAgentVersion(accountId: string, agentId: string, version: number): Promise<AgentRecord> {
    return restoreAgentVersion(this.#settings, accountId, agentId, version);
  }

  /**
   * Deletes an agent and all of its sessions.
   * @throws NotFoundError when it does not exist or belongs to another account.
   */
  async deleteAgent(accountId: string, agentId: string): Promise<void> {
    await this.getAgent(accountId, agentId);
    if (!(await this.#settings.store.deleteAgent(accountId, agentId)))
      throw new NotFoundError({ message: 'Agent not found' });
  }

  /**
   * One agent of the account.
   * @throws NotFoundError when it does not exist or belongs to another account (the same error).
   */
  async getAgent(accountId: string, agentId: string): Promise<AgentRecord> {
    return findAgent(this.#settings.store, accountId, agentId);
  }

  /**
   * Runs an agent on an input (text, or parts with images and files). The model sees the agent's
   * instruction as the system prompt, the session's earlier turns in order (as many of the newest as
   * fit the model's context budget), then the input. The input and the reply are stored together
   * when the model call succeeded; a turn whose tool calls wait for approval is kept as the
   * session's pending turn instead (status `requires_approval`; see {@link AgentService.respondToApproval}).
   *
   * Runs of one session (a given `session_id`) take turns: a run waits for the one before it, up to
   * `runWaitMs`, so each sees the turns before it and no turn is lost.
   *
   * @throws NotFoundError for an unknown agent; InvalidInputError for bad input;
   *   ConflictError when an earlier run of the session holds it past `runWaitMs`, or the session has
   *   a turn waiting for approval;
   *   ProviderError when the provider fails (`provider_error`), rate limits (`provider_rate_limited`)
   *   or times out (`provider_timeout`); StorageUnavailableError when the store or the lock service fails.
   */
  async runAgent(
    accountId: string,
    agentId: string,
    input: RunAgentInput,
    options: RunOptions = {},
  ): Promise<RunResult> {
    return runAgent(this.#settings, { accountId, agentId, input, signal: options.signal, history: options.history });
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
  ): Promise<RunEvents> {
    return streamAgent(this.#settings, { accountId, agentId, input, signal: options.signal, history: options.history });
  }

  /**
   * Answers a tool call that waits for approval (`approve`, and a `reason` the model is told of a
   * denial). While other calls of the turn still wait, the result lists them (`requires_approval`);
   * once all are answered the turn goes on, on the agent version it started with: an approved tool
   * runs once, and the finished turn is stored as one.
   * @throws NotFoundError for an unknown agent, session or approval; InvalidInputError for a bad
   *   answer; ConflictError when a run of the session holds it past `runWaitMs`; what a run throws.
   */
  async respondToApproval(
    accountId: string,
    agentId: string,
    sessionId: string,
    approvalId: string,
    input: ApprovalResponseInput,
    options: Pick<RunOptions, 'signal'> = {},
  ): Promise<RunResult> {
    return respondToApproval(
      this.#settings,
      approvalRequest(accountId, agentId, sessionId, approvalId, input, options),
    );
  }

  /** {@link respondToApproval}, with the turn's events as it goes on, like {@link streamAgent}. */
  async streamApprovalResponse(
    accountId: string,
    agentId: string,
    sessionId: string,
    approvalId: string,
    input: ApprovalResponseInput,
    options: Pick<RunOptions, 'signal'> = {},
  ): Promise<RunEvents> {
    const request = approvalRequest(accountId, agentId, sessionId, approvalId, input, options);
    return streamApprovalResponse(this.#settings, request);
  }

  /**
   * Starts a run in the background and answers at once with it (`queued`): the run goes on without
   * the caller, on this server, its events kept in the run store so any server sharing it can serve
   * them ({@link runEvents}), its status ({@link getRun}) and a cancel ({@link cancelRun}). The input
   * and the agent are checked first (those failures throw here); later failures end the run `failed`.
   * @throws NotFoundError; InvalidInputError; RateLimitedError when the account has `maxInFlight` runs in flight.
   */
  async startRun(
    accountId: string,
    agentId: string,
    input: RunAgentInput,
    options: Pick<RunOptions, 'history'> = {},
  ): Promise<BackgroundRun> {
    return this.#background.start(accountId, agentId, input, options.history);
  }

  /**
   * A background run of the account, with its result once finished.
   * @throws NotFoundError when there is no such run or it belongs to another account (the same error).
   */
  async getRun(accountId: string, runId: string): Promise<BackgroundRun> {
    return this.#background.get(accountId, runId);
  }

  /**
   * An agent's background runs, newest first, a page at a time.
   * @throws NotFoundError for an unknown agent; InvalidInputError for a bad `limit` or `cursor`.
   */
  async listRuns(accountId: string, agentId: string, options: PageOptions = {}): Promise<RunList> {
    return this.#background.list(accountId, agentId, options);
  }

  /**
   * A background run's events with an id above `after` (default 0: all), as they are written, from
   * whichever server runs it; the iteration ends after the run's last event (`done` or `error`).
   * A finished run whose events expired yields its last event only, rebuilt from its record. The
   * iteration also ends (quietly) when `signal` aborts or the service closes. An open reading counts
   * against the account's `maxEventReaders` on this service until its iteration ends, or until
   * `signal` aborts (or the service closes) when its iteration has not started: a caller that
   * neither iterates it to its end nor aborts `signal` must call `return()` on its iterator (one
   * never iterated holds its slot until then).
   * @throws NotFoundError (before any event); InvalidInputError for a bad `after`; RateLimitedError
   *   when the account has `maxEventReaders` readings open on this service.
   */
  async runEvents(
    accountId: string,
    runId: string,
    options: { after?: number; signal?: AbortSignal } = {},
  ): Promise<AsyncIterable<RunEventRecord>> {
    return this.#background.events(accountId, runId, options);
  }

  /**
   * Cancels a background run, from any server: the server running it stops it within about a second
   * and it stores nothing of its turn. Answers once the run has finished (or after about two seconds,
   * still `cancel`ling); a finished run is answered as it is.
   * @throws NotFoundError.
   */
  async cancelRun(accountId: string, runId: string): Promise<BackgroundRun> {
    return this.#background.cancel(accountId, runId);
  }

  /** How many background runs this service is running now, by status (for metrics). */
  backgroundRunCounts(): { queued: number; running: number } {
    return this.#background.counts();
  }

  /**
   * Ends the run event readings open on the service and stops its timers; waits up to `graceMs`
   * (default 0) for its background runs to finish, then stops those still running (`failed`,
   * `server_lost`: nothing of their turn is stored) and waits for them to end, a lease (and a
   * second) at most: one that cannot end by then is left to the sweepers. A background run started after it is refused
   * (`OverloadedError`).
   * @throws TypeError for a `graceMs` that is not a non-negative number.
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    const graceMs = options.graceMs ?? 0;
    if (typeof graceMs !== 'number' || !(graceMs >= 0))
      throw new TypeError('AgentService: graceMs must be a non-negative number');
    await this.#background.close(Math.min(graceMs, 2 ** 31 - 1));
  }

  /**
   * The account's sessions of an agent, newest first, a page at a time.
   * @throws NotFoundError for an unknown agent; InvalidInputError for a bad `limit` or `cursor`.
   */
  async listSessions(accountId: string, agentId: string, options: PageOptions = {}): Promise<SessionList> {
    await this.getAgent(accountId, agentId);
    const limit = pageLimit(options.limit, 20);
    const before = decodeCursor(options.cursor);
    const page = await this.#settings.store.listSessions(accountId, agentId, {
      limit,
      ...(before !== undefined && { before }),
    });
    return { sessions: page.sessions, next_cursor: encodeCursor(page.next) };
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
    const { store } = this.#settings;
    const session = await findSessionRef(store, accountId, agentId, sessionId);
    const limit = pageLimit(options.limit, 100);
    const offset = decodeCursor(options.cursor) ?? 0;
    const info = await store.getSession(session);
    if (!info) throw new NotFoundError({ message: 'Session not found' });
    const messages = (await store.readMessages(session, { offset, limit })).map(partsOf);
    const pending = await store.getPendingTurn(session);
    const next = offset + messages.length;
    return {
      ...info,
      pending_approvals: pending?.approvals ?? [],
      messages,
      next_cursor: next < info.message_count ? encodeCursor(next) : null,
    };
  }

  /**
   * Deletes a session and its messages. Waits for a run of the session in progress, like a run does.
   * @throws NotFoundError for an unknown agent or session; ConflictError when a run holds the session past `runWaitMs`.
   */
  async deleteSession(accountId: string, agentId: string, sessionId: string): Promise<void> {
    const session = await findSessionRef(this.#settings.store, accountId, agentId, sessionId);
    const lease = await lockSession(this.#settings, session, undefined);
    try {
      if (!(await this.#settings.store.deleteSession(session)))
        throw new NotFoundError({ message: 'Session not found' });
    } finally {
      await releaseLock(lease);
    }
  }
}

function approvalRequest(
  accountId: string,
  agentId: string,
  sessionId: string,
  approvalId: string,
  input: ApprovalResponseInput,
  { signal }: Pick<RunOptions, 'signal'>,
): ApprovalRequest {
  return { accountId, agentId, sessionId, approvalId, input, signal };
}
