import type { ModelMessage, ToolSet } from 'ai';
import { configForRun } from '../agents/agent-versions.js';
import { findAgent } from '../agents/find-agent.js';
import { agentModel } from '../agents/offered.js';
import { infoOf } from '../discovery.js';
import { ConflictError } from '../errors/conflict-error.js';
import { releaseLock } from '../locks/take-lock.js';
import type { AgentStore, SessionRef } from '../ports/agent-store.js';
import type { Lease } from '../ports/lock-provider.js';
import type { ChatModel, ModelInfo } from '../ports/model-provider.js';
import type { AgentConfig, AgentRecord, MessagePart, SessionMessage, TokenUsage } from '../records.js';
import { type RunAgentInput, runAgentInputSchema } from '../schemas.js';
import type { ServiceSettings } from '../service-options.js';
import { invalidField, parseInput } from '../validation.js';
import { type AgentTools, agentTools } from './agent-tools.js';
import { givenHistory, historyBudget, readHistory } from './context-budget.js';
import { userModelContent, userTurn } from './input-parts.js';
import { type OutputRequest, outputRequest, runOutput } from './run-output.js';
import { lockSession } from './session-lock.js';

/** What a caller asks of a run: whose, of which agent, on what input; and the caller's signal. */
export interface RunRequest {
  accountId: string;
  agentId: string;
  input: RunAgentInput;
  signal: AbortSignal | undefined;
  /** Earlier turns the caller sent, the history of a run that starts a new session (`RunOptions.history`). */
  history?: unknown;
  /**
   * The id of the new session, made before the run (a background run's, which its client knows
   * from the start); used when the input names no `session_id`. Not a client's field.
   */
  sessionId?: string;
}

/** A run that is ready for its model call: everything checked, the session locked, the history read. */
export interface PreparedRun {
  agent: AgentRecord;
  /** The configuration the run uses: the agent's current one, or that of the version it names. */
  config: AgentConfig;
  /** That configuration's version. */
  version: number;
  model: ChatModel;
  /** The model's name: the agent's `model` (or the turn's that the run resumes), or the fallback model that answers. */
  modelName: string;
  /** What is known of the model (its price, for the run's cost). */
  info: ModelInfo;
  session: SessionRef;
  /** The user's message of the turn, as it is stored. */
  user: SessionMessage;
  /** What the turn did before this model call (a turn resumed after approvals); none for a new turn. */
  earlier: { parts: MessagePart[]; tokens: TokenUsage } | undefined;
  /** The history that fits the context budget, then the input (and what the turn did so far). */
  messages: ModelMessage[];
  /** Earlier messages of the session left out of `messages`. */
  omitted: number;
  tools: ToolSet | undefined;
  /** The merged tools' integrations, and which tools wait for approval. */
  toolSet: AgentTools;
  /** The AI SDK output specification (none for plain text). */
  output: Awaited<ReturnType<typeof runOutput>>;
  /** The JSON answer the run asked for (kept with a turn that waits for approval); none for text. */
  asked: OutputRequest | undefined;
  /** Told when a tool of the call starts to run (a call that ran one is not tried on a fallback model). */
  onToolRun?: () => void;
  /** The session's lock, held until the run is over; none for a session the run just started. */
  lease: Lease | undefined;
  startedAt: string;
}

/**
 * @throws ConflictError naming the approvals when the session's last turn waits for them: the turn
 *   must be finished (`respondToApproval`) before another starts.
 */
export async function refusePendingTurn(store: AgentStore, session: SessionRef): Promise<void> {
  const pending = await store.getPendingTurn(session);
  if (!pending) return;
  const ids = pending.approvals.map((a) => a.approval_id).join(', ');
  // Every call answered, the turn unfinished (its model call failed after): an answer sent again finishes it.
  const message = ids
    ? `The session's last turn waits for approval of tool calls (${ids}); approve or deny them first`
    : "The session's last turn did not finish after its tool calls were answered; send one of those answers again to finish it";
  throw new ConflictError({ message });
}

/**
 * The first step of a run: loads the agent and the configuration the run uses, validates the input
 * and its output format, resolves the model and the tools, checks the context budget, then (for a
 * session the caller named) takes the session's lock, checks that no turn waits for approval, and
 * reads the history that fits. The caller releases `lease` when the run is over; a failure here
 * releases it.
 * @throws NotFoundError; InvalidInputError; ConflictError; what the sandbox or the store throws.
 */
export async function prepareRun(
  settings: ServiceSettings,
  { accountId, agentId, input, signal, history: sent, sessionId }: RunRequest,
): Promise<PreparedRun> {
  const agent = await findAgent(settings.store, accountId, agentId);
  const run = parseInput(runAgentInputSchema, input);
  const { config, version } = await configForRun(settings.store, accountId, agent, run.version);
  const model = agentModel(settings.models, { config });
  const info = infoOf(settings.models, config.model);
  const turn = userTurn(run.input, info);
  if (turn.content.length > settings.maxInputChars)
    throw invalidField('input', `input must be at most ${settings.maxInputChars} characters`);
  const asked = outputRequest(run);
  const maxOutputTokens = config.max_output_tokens ?? settings.maxOutputTokens;
  const output = await runOutput(settings, { accountId, maxOutputTokens }, asked, signal);
  const toolSet = agentTools(settings.tools, config);
  const session: SessionRef = {
    accountId,
    agentId,
    sessionId: run.session_id ?? sessionId ?? settings.generateId('session'),
  };
  const budget = historyBudget(settings, {
    config,
    info,
    input: turn.content,
    parts: turn.parts,
    tools: toolSet.tools,
  });

  // A session id the server just made is known to nobody else, so only given ids need the lock; one
  // made before the run was handed out (a background run's), so a second run on it waits for this one.
  const lease = run.session_id || sessionId ? await lockSession(settings, session, signal) : undefined;
  try {
    if (run.session_id) await refusePendingTurn(settings.store, session);
    const history = run.session_id
      ? await readHistory(settings.store, session, settings.historyLimit, budget)
      : sent === undefined
        ? { messages: [], omitted: 0 }
        : givenHistory(sent, settings.historyLimit, budget);
    const startedAt = settings.now().toISOString();
    const user: SessionMessage = {
      role: 'user',
      content: turn.content,
      ...(turn.parts && { parts: turn.parts }),
      created_at: startedAt,
    };
    const messages: ModelMessage[] = [...history.messages, { role: 'user', content: userModelContent(turn) }];
    const common = { agent, config, version, model, modelName: config.model, info, session, output, asked, lease };
    return {
      ...common,
      user,
      earlier: undefined,
      messages,
      omitted: history.omitted,
      tools: toolSet.tools,
      toolSet,
      startedAt,
    };
  } catch (error) {
    await releaseLock(lease);
    throw error;
  }
}
