import type { ModelMessage, ToolSet } from 'ai';
import { configForRun } from '../agents/agent-versions.js';
import { findAgent } from '../agents/find-agent.js';
import { agentModel } from '../agents/offered.js';
import { infoOf } from '../discovery.js';
import { releaseLock } from '../locks/take-lock.js';
import type { SessionRef } from '../ports/agent-store.js';
import type { Lease } from '../ports/lock-provider.js';
import type { ChatModel, ModelInfo } from '../ports/model-provider.js';
import type { AgentRecord } from '../records.js';
import { type RunAgentInput, runAgentInputSchema } from '../schemas.js';
import type { ServiceSettings } from '../service-options.js';
import { outputFormat } from '../structured-output/output-format.js';
import { invalidField, parseInput } from '../validation.js';
import { givenHistory, historyBudget, readHistory } from './context-budget.js';
import { lockSession } from './session-lock.js';

/** What a caller asks of a run: whose, of which agent, on what input; and the caller's signal. */
export interface RunRequest {
  accountId: string;
  agentId: string;
  input: RunAgentInput;
  signal: AbortSignal | undefined;
  /** Earlier turns the caller sent, the history of a run that starts a new session (`RunOptions.history`). */
  history?: unknown;
}

/** A run that is ready for its model call: everything checked, the session locked, the history read. */
export interface PreparedRun {
  /** The agent, with the configuration of the version the run uses. */
  agent: AgentRecord;
  /** The version of the agent the run uses (`metadata.agent_version`). */
  agentVersion: number;
  model: ChatModel;
  /** What is known of the model (its price, for the run's cost). */
  info: ModelInfo;
  session: SessionRef;
  input: string;
  /** The history that fits the context budget, then the input. */
  messages: ModelMessage[];
  /** Earlier messages of the session left out of `messages`. */
  omitted: number;
  tools: ToolSet | undefined;
  /** The AI SDK output specification (none for plain text). */
  output: Awaited<ReturnType<typeof outputFormat>>;
  /** The session's lock, held until the run is over; none for a session the run just started. */
  lease: Lease | undefined;
  startedAt: string;
}

/**
 * The first step of a run: loads the agent, validates the input and its output format, resolves the
 * model, checks the context budget, then (for a session the caller named) takes the session's lock
 * and reads the history that fits. The caller releases `lease` when the run is over; a failure here
 * releases it.
 * @throws NotFoundError; InvalidInputError; ConflictError; what the sandbox or the store throws.
 */
export async function prepareRun(
  settings: ServiceSettings,
  { accountId, agentId, input, signal, history: sent }: RunRequest,
): Promise<PreparedRun> {
  const found = await findAgent(settings.store, accountId, agentId);
  const run = parseInput(runAgentInputSchema, input);
  const { config, version: agentVersion } = await configForRun(settings.store, accountId, found, run.version);
  const agent: AgentRecord = { ...found, config };
  if (run.input.length > settings.maxInputChars)
    throw invalidField('input', `input must be at most ${settings.maxInputChars} characters`);
  const output = await outputFormat({
    jsonMode: run.json_mode ?? undefined,
    jsonFormat: run.json_format ?? undefined,
    accountId,
    maxOutputTokens: settings.maxOutputTokens,
    sandbox: settings.sandbox,
    ...(signal && { signal }),
  });
  const model = agentModel(settings.models, agent);
  const tools = agent.config.tool === null ? undefined : settings.tools.tools(agent.config.tool);
  const session: SessionRef = { accountId, agentId, sessionId: run.session_id ?? settings.generateId('session') };
  const info = infoOf(settings.models, agent.config.model);
  const budget = historyBudget(settings, { agent, info, input: run.input, tools });

  // A session id the server just made is known to nobody else, so only given ids need the lock.
  const lease = run.session_id ? await lockSession(settings, session, signal) : undefined;
  try {
    const history = run.session_id
      ? await readHistory(settings.store, session, settings.historyLimit, budget)
      : sent === undefined
        ? { messages: [], omitted: 0 }
        : givenHistory(sent, settings.historyLimit, budget);
    const messages: ModelMessage[] = [...history.messages, { role: 'user', content: run.input }];
    const startedAt = settings.now().toISOString();
    return {
      agent,
      agentVersion,
      model,
      info,
      session,
      input: run.input,
      messages,
      omitted: history.omitted,
      tools,
      output,
      lease,
      startedAt,
    };
  } catch (error) {
    await releaseLock(lease);
    throw error;
  }
}
