import { StorageUnavailableError } from '../errors/storage-unavailable-error.js';
import { estimatedCost } from '../models/cost.js';
import type { RunResult } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import type { ModelAnswer } from './model-call.js';
import type { PreparedRun } from './prepare.js';

/**
 * The last step of a run: stores the input and the answer as one turn (one `appendMessages`), only
 * when the run was not aborted and still holds the session's lease, and returns the run's result.
 * @throws the signal's reason; StorageUnavailableError for a lost lease or a failed store.
 */
export async function commitRun(
  settings: Pick<ServiceSettings, 'store' | 'now'>,
  run: PreparedRun,
  { output, calledTool, usage }: ModelAnswer,
  signal: AbortSignal | undefined,
): Promise<RunResult> {
  signal?.throwIfAborted();
  if (run.lease?.signal.aborted)
    throw new StorageUnavailableError({ message: 'Lost the session lock during the run; nothing was stored' });
  await settings.store.appendMessages(run.session, [
    { role: 'user', content: run.input, created_at: run.startedAt },
    { role: 'assistant', content: output, created_at: settings.now().toISOString() },
  ]);
  const prompt = usage.inputTokens ?? 0;
  const completion = usage.outputTokens ?? 0;
  const cost = estimatedCost(run.info, { prompt, completion });
  return {
    output,
    session_id: run.session.sessionId,
    metadata: {
      model: run.agent.config.model,
      agent_version: run.agentVersion,
      tool_used: calledTool ? run.agent.config.tool : null,
      tokens: { prompt, completion, total: prompt + completion },
      omitted_messages: run.omitted,
      ...(cost !== undefined && { cost }),
    },
  };
}
