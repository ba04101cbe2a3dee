import { configForRun } from '../agents/agent-versions.js';
import { findAgent, findSessionRef } from '../agents/find-agent.js';
import { agentModel } from '../agents/offered.js';
import { messageTokens } from '../context-window.js';
import { infoOf } from '../discovery.js';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { releaseLock } from '../locks/take-lock.js';
import type { SessionRef } from '../ports/agent-store.js';
import type { Lease } from '../ports/lock-provider.js';
import type {
  AgentConfig,
  AgentRecord,
  MessagePart,
  PendingTurn,
  RunEvent,
  RunEvents,
  RunResult,
  ToolResultPart,
} from '../records.js';
import { approvalResponseSchema } from '../schemas.js';
import type { ServiceSettings } from '../service-options.js';
import { parseInput } from '../validation.js';
import { type AgentTools, agentTools } from './agent-tools.js';
import { runResult } from './commit.js';
import { historyBudget, readHistory } from './context-budget.js';
import { readsParts, userModelContent } from './input-parts.js';
import { type KeepResult, keptTools } from './kept-tools.js';
import { assistantMessages, partsText } from './message-parts.js';
import type { PreparedRun } from './prepare.js';
import { runPrepared } from './run-agent.js';
import { runOutput } from './run-output.js';
import { lockSession } from './session-lock.js';
import { resultEvents, streamPrepared } from './stream-agent.js';
import { traced } from './telemetry.js';

/** A person's answer to one tool call that waits for approval, and the caller's signal. */
export interface ApprovalRequest {
  accountId: string;
  agentId: string;
  sessionId: string;
  approvalId: string;
  /** `{ approve, reason? }` ({@link approvalResponseSchema}). */
  input: unknown;
  signal: AbortSignal | undefined;
}

/** What an answer leads to: the turn still waits for other approvals, or it goes on. */
type Answered = { waiting: RunResult; run?: undefined } | { waiting?: undefined; run: PreparedRun };

/**
 * Records a person's answer to a tool call that waits for approval. While other calls of the turn
 * still wait, the answer is kept with the pending turn and the result lists them; once every call is
 * answered the turn goes on: the approved tools run (once), denials reach the model with their
 * reason, and the whole turn is stored as one.
 * @throws NotFoundError for an unknown agent, session or approval; InvalidInputError for a bad
 *   answer; ConflictError when a run of the session holds it; what a run throws.
 */
export async function respondToApproval(settings: ServiceSettings, request: ApprovalRequest): Promise<RunResult> {
  const span = settings.tracer.startRun({ 'agenthost.agent_id': request.agentId, 'agenthost.approval': true });
  return traced(span, async () => {
    const answered = await answerApproval(settings, request);
    return answered.waiting ?? runPrepared(settings, answered.run, request.signal);
  });
}

/**
 * {@link respondToApproval}, streamed like a run: the turn's events as it goes on, or, while other
 * calls still wait, one `approval-request` event for each, then `done`.
 */
export async function streamApprovalResponse(settings: ServiceSettings, request: ApprovalRequest): Promise<RunEvents> {
  const answered = await answerApproval(settings, request);
  if (answered.run) return streamPrepared(settings, answered.run, request.signal);
  const events = resultEvents(answered.waiting);
  async function* replay(): AsyncGenerator<RunEvent> {
    yield* events;
  }
  return Object.assign(replay(), { session_id: answered.waiting.session_id });
}

/** Checks the answer, takes the session's lock, and records it (or prepares the turn's next call). */
async function answerApproval(settings: ServiceSettings, request: ApprovalRequest): Promise<Answered> {
  const { store } = settings;
  const answer = parseInput(approvalResponseSchema, request.input);
  const agent = await findAgent(store, request.accountId, request.agentId);
  const session = await findSessionRef(store, request.accountId, request.agentId, request.sessionId);
  const lease = await lockSession(settings, session, request.signal);
  try {
    const pending = await store.getPendingTurn(session);
    // Every call was answered, but the turn did not finish (its model call failed): go on from there.
    if (pending && pending.approvals.length === 0 && answeredIn(pending.parts, request.approvalId))
      return { run: await resumeTurn(settings, { agent, session, turn: pending, lease }) };
    const approval = pending?.approvals.find((a) => a.approval_id === request.approvalId);
    if (!pending || !approval) throw new NotFoundError({ message: 'Approval not found' });
    const response: MessagePart = {
      type: 'tool-approval-response',
      approval_id: approval.approval_id,
      approved: answer.approve,
      ...(answer.reason !== undefined && { reason: answer.reason }),
    };
    const turn: PendingTurn = {
      ...pending,
      parts: [...pending.parts, response],
      approvals: pending.approvals.filter((a) => a !== approval),
    };
    if (turn.approvals.length === 0) {
      // Checked first (the version, its model and tools): a turn that cannot go on keeps its question.
      const run = await resumeTurn(settings, { agent, session, turn, lease });
      // The answer is kept before anything runs: a turn that fails from here on is resumed, not answered again.
      await store.appendMessages(session, [], turn);
      return { run };
    }
    await store.appendMessages(session, [], turn);
    await releaseLock(lease);
    return { waiting: await waitingResult(settings, agent, session, turn) };
  } catch (error) {
    await releaseLock(lease);
    throw error;
  }
}

/** Whether `parts` hold an answer to the approval `approvalId`. */
function answeredIn(parts: readonly MessagePart[], approvalId: string): boolean {
  return parts.some((p) => p.type === 'tool-approval-response' && p.approval_id === approvalId);
}

/** The calls of `parts` that were approved and have no result yet: the ones the resumed turn runs. */
function approvedCalls(parts: readonly MessagePart[]): Set<string> {
  const approved = new Set(
    parts.flatMap((p) => (p.type === 'tool-approval-response' && p.approved ? [p.approval_id] : [])),
  );
  const done = new Set(parts.flatMap((p) => (p.type === 'tool-result' ? [p.tool_call_id] : [])));
  return new Set(
    parts.flatMap((p) =>
      p.type === 'tool-approval-request' && approved.has(p.approval_id) && !done.has(p.tool_call_id)
        ? [p.tool_call_id]
        : [],
    ),
  );
}

/**
 * Keeps each approved call's result with the pending turn as it comes (one write at a time, under the
 * session's lock). A write that fails is left: the turn's commit stores the result anyway, and only a
 * turn that also fails to finish would run that tool again.
 */
function resultKeeper(store: ServiceSettings['store'], session: SessionRef, turn: PendingTurn): KeepResult {
  const kept: ToolResultPart[] = [];
  let writes = Promise.resolve();
  return (part) => {
    kept.push(part);
    const next = { ...turn, parts: [...turn.parts, ...kept] };
    writes = writes.then(() => store.appendMessages(session, [], next)).catch(() => {});
    return writes;
  };
}

/** Why a pending turn cannot go on, and the way out. */
function cannotGoOn(why: string): InvalidInputError {
  const message = `The session's waiting turn cannot go on: ${why}. Delete the session to start it over`;
  return new InvalidInputError({ message, details: { session: { message, path: ['session'] } } });
}

/** The tools of a resumed turn's version. @throws InvalidInputError saying the turn cannot go on. */
function turnToolsOrFail(settings: ServiceSettings, config: AgentConfig): AgentTools {
  try {
    return agentTools(settings.tools, config);
  } catch (error) {
    if (!InvalidInputError.isInstance(error)) throw error;
    throw cannotGoOn(error.message.replace(/; update the agent.*$/, ''));
  }
}

/** The integrations of a pending turn's tools, as well as they can still be known (for `tools_used`). */
async function turnTools(
  settings: ServiceSettings,
  agent: AgentRecord,
  accountId: string,
  turn: PendingTurn,
): Promise<AgentTools> {
  try {
    const { config } = await configForRun(settings.store, accountId, agent, turn.agent_version);
    return agentTools(settings.tools, config);
  } catch {
    return { tools: undefined, integrationOf: new Map(), approval: undefined };
  }
}

/** The result of an answer after which other calls of the turn still wait. */
async function waitingResult(
  settings: ServiceSettings,
  agent: AgentRecord,
  session: SessionRef,
  turn: PendingTurn,
): Promise<RunResult> {
  const run = {
    session,
    modelName: turn.model,
    version: turn.agent_version,
    toolSet: await turnTools(settings, agent, session.accountId, turn),
    info: infoOf(settings.models, turn.model),
    omitted: 0,
  };
  return runResult(run, {
    output: partsText(turn.parts),
    parts: turn.parts,
    tokens: turn.tokens,
    approvals: turn.approvals,
  });
}

/**
 * A pending turn whose every call is answered, ready for its next model call: on the agent version
 * and the model the turn started with, the history that fits, the user's message, then what the
 * assistant did so far and the answers (which the AI SDK turns into tool runs or denials).
 */
async function resumeTurn(
  settings: ServiceSettings,
  { agent, session, turn, lease }: { agent: AgentRecord; session: SessionRef; turn: PendingTurn; lease: Lease },
): Promise<PreparedRun> {
  const { config, version } = await configForRun(settings.store, session.accountId, agent, turn.agent_version);
  // The model the turn started on; the version's own when the server no longer offers that one.
  const modelName = settings.models.languageModel(turn.model) ? turn.model : config.model;
  const model = agentModel(settings.models, { config: { model: modelName } });
  const info = infoOf(settings.models, modelName);
  if (!readsParts(info, turn.user.parts))
    throw cannotGoOn(`its model "${modelName}" cannot read the images or files of its input`);
  const toolSet = turnToolsOrFail(settings, config);
  const tools = keptTools(toolSet.tools, approvedCalls(turn.parts), resultKeeper(settings.store, session, turn));
  const budget = historyBudget(settings, {
    config: { ...config, model: modelName },
    info,
    input: turn.user.content,
    parts: turn.user.parts,
    tools: toolSet.tools,
  });
  const sofar = messageTokens({ content: '', parts: turn.parts });
  const history = await readHistory(settings.store, session, settings.historyLimit, Math.max(0, budget - sofar));
  const messages = [
    ...history.messages,
    { role: 'user' as const, content: userModelContent(turn.user) },
    ...assistantMessages(turn.parts, { approvals: true }),
  ];
  return {
    agent,
    config,
    version,
    model,
    modelName,
    info,
    session,
    user: turn.user,
    earlier: { parts: turn.parts, tokens: turn.tokens },
    messages,
    omitted: history.omitted,
    tools,
    toolSet,
    output: await runOutput(
      settings,
      { accountId: session.accountId, maxOutputTokens: config.max_output_tokens ?? settings.maxOutputTokens },
      turn.output_format,
      undefined,
    ),
    asked: turn.output_format,
    lease,
    startedAt: settings.now().toISOString(),
  };
}
