import { StorageUnavailableError } from '../errors/storage-unavailable-error.js';
import { estimatedCost } from '../models/cost.js';
import type { MessagePart, PendingTurn, RunResult, SessionMessage, TokenUsage } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { toolsUsed } from './agent-tools.js';
import { calledTools, hasMoreThanText, partsText, unansweredApprovals } from './message-parts.js';
import type { ModelAnswer } from './model-call.js';
import type { PreparedRun } from './prepare.js';

/** The tokens of the turn so far: those of its earlier model calls, and this one's. */
function turnTokens(run: PreparedRun, usage: ModelAnswer['usage']): TokenUsage {
  const prompt = (run.earlier?.tokens.prompt ?? 0) + (usage.inputTokens ?? 0);
  const completion = (run.earlier?.tokens.completion ?? 0) + (usage.outputTokens ?? 0);
  return { prompt, completion, total: prompt + completion };
}

/** The turn's stored messages: the user's, and the assistant's (with its parts when it has more than text). */
function finishedTurn(run: PreparedRun, output: string, parts: MessagePart[], at: string): SessionMessage[] {
  const reply: SessionMessage = {
    role: 'assistant',
    content: output,
    ...(hasMoreThanText(parts) && { parts }),
    created_at: at,
  };
  return [run.user, reply];
}

/**
 * The last step of a run, only when the run was not aborted and still holds the session's lease.
 * A turn whose tool calls wait for approval is kept as the session's pending turn (its messages are
 * not stored yet); a finished turn is stored as its two messages, in one `appendMessages` that also
 * clears the pending turn it finishes. Returns the run's result.
 * @throws the signal's reason; StorageUnavailableError for a lost lease or a failed store.
 */
export async function commitRun(
  settings: Pick<ServiceSettings, 'store' | 'now'>,
  run: PreparedRun,
  { output, parts: answered, usage }: ModelAnswer,
  signal: AbortSignal | undefined,
): Promise<RunResult> {
  signal?.throwIfAborted();
  if (run.lease?.signal.aborted)
    throw new StorageUnavailableError({ message: 'Lost the session lock during the run; nothing was stored' });
  const parts = [...(run.earlier?.parts ?? []), ...answered];
  const tokens = turnTokens(run, usage);
  const approvals = unansweredApprovals(parts);
  if (approvals.length > 0) {
    const pending: PendingTurn = {
      user: run.user,
      parts,
      approvals,
      agent_version: run.version,
      model: run.modelName,
      tokens,
      ...(run.asked && { output_format: run.asked }),
      created_at: run.user.created_at,
    };
    await settings.store.appendMessages(run.session, [], pending);
    return runResult(run, { output: partsText(parts), parts, tokens, approvals });
  }
  const messages = finishedTurn(run, output, parts, settings.now().toISOString());
  await settings.store.appendMessages(run.session, messages, run.earlier ? null : undefined);
  return runResult(run, { output, parts, tokens, approvals });
}

/** A run's result: its output, status and metadata (the tools it called, by integration). */
export function runResult(
  run: Pick<PreparedRun, 'session' | 'modelName' | 'version' | 'toolSet' | 'info' | 'omitted'>,
  turn: { output: string; parts: MessagePart[]; tokens: TokenUsage; approvals: RunResult['pending_approvals'] },
): RunResult {
  const used = toolsUsed(calledTools(turn.parts), run.toolSet.integrationOf);
  const cost = estimatedCost(run.info, { prompt: turn.tokens.prompt, completion: turn.tokens.completion });
  return {
    output: turn.output,
    session_id: run.session.sessionId,
    status: turn.approvals.length > 0 ? 'requires_approval' : 'completed',
    pending_approvals: turn.approvals,
    metadata: {
      model: run.modelName,
      agent_version: run.version,
      tool_used: used[0] ?? null,
      tools_used: used,
      tokens: turn.tokens,
      omitted_messages: run.omitted,
      ...(cost !== undefined && { cost }),
    },
  };
}
