import type {
  AgentService,
  BackgroundRun,
  RunAgentInput,
  RunEvent,
  RunEvents,
  RunResult,
  UpdateAgentInput,
} from '@agenthost/core';
import { resolveAliases, wireAgent, wireVersion, wireVersions } from './agent-aliases.js';
import { type ApiResponse, type RequestLog, success } from './envelope.js';
import { approvalInput, runInput, updateInput, wantsBackground } from './http-bodies.js';
import { errorResponse } from './http-errors.js';
import { listAgents } from './list-agents.js';
import { queryInt, queryString } from './query-params.js';

/** A request as the handlers see it: already authenticated and parsed, with no framework in it. */
export interface ApiRequest {
  accountId: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  /** Where the API is mounted (e.g. `/api/v1`), for links. */
  baseUrl?: string;
  /** The `Idempotency-Key` header, when sent. */
  idempotencyKey?: string;
  /** The `x-session-id` header, when sent: the chat route's session when the body names none. */
  sessionId?: string;
  signal?: AbortSignal;
}

/** A framework-neutral handler: parse input, call the service, build the envelope. */
export type ApiHandler = (request: ApiRequest) => Promise<ApiResponse>;

/** One server-sent event: its name, its JSON data and, for a run's events, its id. */
export interface SseFrame {
  event: RunEvent['type'] | 'error' | 'run';
  data: unknown;
  /**
   * The `id:` line: a streamed run's events count from 1 within the stream; a background run's
   * events carry their id in the run; a frame without one (a background run's `run`) has none.
   */
  id?: number;
  /** On `done`: what the request log needs of the run; not sent. */
  log?: RequestLog;
}

/** What a request log may say about a run: its agent, session, model, tool and tokens, and its input and output. */
export function runLog(agentId: string, input: string, result: RunResult): RequestLog {
  const { model, tool_used, tools_used, tokens } = result.metadata;
  return {
    agent_id: agentId,
    session_id: result.session_id,
    run: { model, tool_used, tools_used, tokens },
    input,
    output: result.output,
  };
}

/** What the request log shows as the input of an answer to an approval. */
export function approvalLogInput(answer: { approve: boolean; reason?: string | undefined }): string {
  return `${answer.approve ? 'approve' : 'deny'}${answer.reason === undefined ? '' : `: ${answer.reason}`}`;
}

/** The path's ids of an answer to an approval. */
const approvalIds = (params: Record<string, string>) =>
  [params.agentId ?? '', params.sessionId ?? '', params.approvalId ?? ''] as const;

/** A background run that was started, answered: 202 with the run object. */
export function acceptedRun(agentId: string, run: BackgroundRun): ApiResponse {
  return { ...success(run, 202), log: { agent_id: agentId, session_id: run.session_id } };
}

/** A background run answered (200), its agent and session noted for the request log. */
const runAnswer = (run: BackgroundRun): ApiResponse => ({
  ...success(run),
  log: { agent_id: run.agent_id, session_id: run.session_id },
});

/** A run body's input, for the request log: its text, and what else its parts are (`[image/png]`). */
export function bodyInput(body: unknown): string {
  const { input, input_data } = (body ?? {}) as { input?: unknown; input_data?: unknown };
  if (!Array.isArray(input)) return String(input ?? input_data ?? '');
  return input
    .map((part: { type?: unknown; text?: unknown; media_type?: unknown }) =>
      part?.type === 'text' ? String(part.text ?? '') : `[${String(part?.media_type ?? part?.type)}]`,
    )
    .join(' ');
}

/** A version number in a path; anything else is a number no version has (the service answers 404). */
function pathVersion(raw: string | undefined): number {
  return raw !== undefined && /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : 0;
}

const page = (query: Record<string, unknown>) => {
  const limit = queryInt(query, 'limit');
  const cursor = queryString(query, 'cursor');
  return { ...(limit !== undefined && { limit }), ...(cursor !== undefined && { cursor }) };
};

/** The API's operations over a service; errors are thrown and become envelopes in one place. */
export function createHandlers(service: AgentService) {
  return {
    createAgent: async ({ accountId, body }) => {
      const agent = await service.createAgent(accountId, resolveAliases(body, service.listTools()) as never);
      return {
        ...success({ agent_id: agent.agent_id, created_at: agent.created_at }),
        log: { agent_id: agent.agent_id },
      };
    },
    listAgents: (request) => listAgents(service, request),
    listAgentVersions: async ({ accountId, params, query }) =>
      success(wireVersions(await service.listAgentVersions(accountId, params.agentId ?? '', page(query)))),
    getAgentVersion: async ({ accountId, params }) =>
      success(wireVersion(await service.getAgentVersion(accountId, params.agentId ?? '', pathVersion(params.version)))),
    restoreAgentVersion: async ({ accountId, params }) =>
      success(
        wireAgent(await service.restoreAgentVersion(accountId, params.agentId ?? '', pathVersion(params.version))),
      ),
    updateAgent: async ({ accountId, params, body }) => {
      const changes = resolveAliases(updateInput(body), service.listTools()) as UpdateAgentInput;
      return success(wireAgent(await service.updateAgent(accountId, params.agentId ?? '', changes)));
    },
    deleteAgent: async ({ accountId, params }) => {
      await service.deleteAgent(accountId, params.agentId ?? '');
      return success({ agent_id: params.agentId, deleted: true });
    },
    getAgent: async ({ accountId, params }) =>
      success(wireAgent(await service.getAgent(accountId, params.agentId ?? ''))),
    listModels: async () => success(service.describeModels()),
    listTools: async () => success(service.describeTools()),
    runAgent: async ({ accountId, params, body, signal }) => {
      const agentId = params.agentId ?? '';
      const input = (await runInput(service, accountId, agentId, body)) as RunAgentInput;
      if (wantsBackground(body)) return acceptedRun(agentId, await service.startRun(accountId, agentId, input));
      const result = await service.runAgent(accountId, agentId, input, signal ? { signal } : {});
      return { ...success(result), log: runLog(agentId, bodyInput(body), result) };
    },
    getRun: async ({ accountId, params }) => runAnswer(await service.getRun(accountId, params.runId ?? '')),
    listRuns: async ({ accountId, params, query }) =>
      success(await service.listRuns(accountId, params.agentId ?? '', page(query))),
    cancelRun: async ({ accountId, params }) => runAnswer(await service.cancelRun(accountId, params.runId ?? '')),
    respondToApproval: async ({ accountId, params, body, signal }) => {
      const [agentId, sessionId, approvalId] = approvalIds(params);
      const answer = await approvalInput(service, accountId, agentId, body);
      const result = await service.respondToApproval(
        accountId,
        agentId,
        sessionId,
        approvalId,
        answer,
        signal ? { signal } : {},
      );
      return { ...success(result), log: runLog(agentId, approvalLogInput(answer), result) };
    },
    listSessions: async ({ accountId, params, query }) =>
      success(await service.listSessions(accountId, params.agentId ?? '', page(query))),
    getSession: async ({ accountId, params, query }) =>
      success(await service.getSession(accountId, params.agentId ?? '', params.sessionId ?? '', page(query))),
    deleteSession: async ({ accountId, params }) => {
      await service.deleteSession(accountId, params.agentId ?? '', params.sessionId ?? '');
      return success({ session_id: params.sessionId, deleted: true });
    },
  } satisfies Record<string, ApiHandler>;
}

/** Options of a stream of server-sent event frames. */
export interface FrameOptions {
  bodyLimit: string | number;
  onServerError: (error: unknown, status: number) => void;
}

/**
 * A run's events as server-sent event frames: each `done` carrying the same data as a run's JSON
 * answer, or one `error` frame carrying the error envelope.
 */
async function* framesOf(
  events: AsyncIterable<RunEvent>,
  log: { agentId: string; input: string; signal?: AbortSignal | undefined },
  options: FrameOptions,
): AsyncGenerator<SseFrame> {
  let id = 0;
  try {
    for await (const event of events) {
      const { type, ...data } = event;
      yield type === 'done'
        ? { id: ++id, event: type, data: event.result, log: runLog(log.agentId, log.input, event.result) }
        : { id: ++id, event: type, data };
    }
  } catch (error) {
    if (log.signal?.aborted) return;
    const { response } = errorResponse(error, options);
    if (response.status >= 500) options.onServerError(error, response.status);
    yield { id: ++id, event: 'error', data: response.body };
  }
}

/** Streams server-sent event frames of a request: the run's, or the resumed run's of an approval. */
export type FrameSource = (
  service: AgentService,
  request: ApiRequest,
  options: FrameOptions,
) => Promise<AsyncIterable<SseFrame>>;

/**
 * A streamed run as server-sent event frames (see {@link framesOf}). Failures before the stream
 * starts (unknown agent, bad input, a busy session) throw, so they can be answered as JSON.
 */
export const streamRun: FrameSource = async (service, { accountId, params, body, signal }, options) => {
  const agentId = params.agentId ?? '';
  const input = (await runInput(service, accountId, agentId, body)) as RunAgentInput;
  const events: RunEvents = await service.streamAgent(accountId, agentId, input, signal ? { signal } : {});
  return framesOf(events, { agentId, input: bodyInput(body), signal }, options);
};

/**
 * An answer to an approval, streamed: the resumed run's frames, as a streamed run's. Failures before
 * the stream starts (unknown agent, session or approval, a bad body, a busy session) throw.
 */
export const streamApproval: FrameSource = async (service, { accountId, params, body, signal }, options) => {
  const [agentId, sessionId, approvalId] = approvalIds(params);
  const answer = await approvalInput(service, accountId, agentId, body);
  const events = await service.streamApprovalResponse(
    accountId,
    agentId,
    sessionId,
    approvalId,
    answer,
    signal ? { signal } : {},
  );
  return framesOf(events, { agentId, input: approvalLogInput(answer), signal }, options);
};
