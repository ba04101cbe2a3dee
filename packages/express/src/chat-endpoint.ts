import type { AgentService, RunEvents } from '@agenthost/core';
import { pipeUIMessageStreamToResponse } from 'ai';
import type { Request, RequestHandler, Response } from 'express';
import { apiRequest } from './api-request.js';
import { answersApprovals, type ChatApprovals, isUiChat, uiChatRequest } from './chat-bodies.js';
import { inputLogText } from './chat-input-parts.js';
import type { EndpointOptions } from './endpoint-options.js';
import { refusal } from './envelope.js';
import { type ApiHandler, type ApiRequest, approvalLogInput, runLog } from './handlers.js';
import { wantsBackground } from './http-bodies.js';
import { errorResponse } from './http-errors.js';
import { keepLog, send } from './request-state.js';
import { type ResumedToolCalls, uiMessageStream } from './ui-message-stream.js';

/** A streamed run, what the request log shows as its input, and the tool calls it goes on from. */
interface ChatRun {
  events: RunEvents;
  input: string;
  resumed?: ResumedToolCalls;
}

/**
 * Answers the approvals of a chat's follow-up that are still pending on its session, the last one
 * streamed: the run resumes once every approval of the turn is answered. Approvals answered before
 * (a client sending its answers again) are left as they are; when none is pending, the last one is
 * sent anyway, so the service's 404 says so.
 */
async function answerApprovals(
  service: AgentService,
  accountId: string,
  agentId: string,
  chat: ChatApprovals,
  signal: AbortSignal | undefined,
): Promise<ChatRun> {
  const session = await service.getSession(accountId, agentId, chat.session_id, { limit: 1 });
  const pending = new Set(session.pending_approvals.map((approval) => approval.approval_id));
  const open = chat.approvals.filter((approval) => pending.has(approval.approval_id));
  const answers = open.length > 0 ? open : chat.approvals.slice(-1);
  const answer = ({ approve, reason }: (typeof answers)[number]) => ({
    approve,
    ...(reason !== undefined && { reason }),
  });
  const options = signal ? { signal } : {};
  for (const approval of answers.slice(0, -1))
    await service.respondToApproval(
      accountId,
      agentId,
      chat.session_id,
      approval.approval_id,
      answer(approval),
      options,
    );
  const last = answers.at(-1)!;
  const events = await service.streamApprovalResponse(
    accountId,
    agentId,
    chat.session_id,
    last.approval_id,
    answer(last),
    options,
  );
  return {
    events,
    input: answers.map((approval) => approvalLogInput(answer(approval))).join('; '),
    resumed: {
      ...(chat.message_id !== undefined && { messageId: chat.message_id }),
      approved: answers.filter((a) => a.approve).map((a) => a.tool_call_id),
      denied: answers.filter((a) => !a.approve).map((a) => a.tool_call_id),
    },
  };
}

/** The run a UI chat request streams: a new turn on the last user message, or the resumed one of its approvals. */
async function chatRun(service: AgentService, request: ApiRequest): Promise<ChatRun> {
  const { accountId, signal } = request;
  const agentId = request.params.agentId ?? '';
  const chat = await uiChatRequest(service, accountId, agentId, request.body, request.sessionId);
  if (answersApprovals(chat)) return answerApprovals(service, accountId, agentId, chat, signal);
  const events = await service.streamAgent(accountId, agentId, chat.input, signal ? { signal } : {});
  return { events, input: inputLogText(chat.input.input) };
}

/**
 * Streams a chat as the AI SDK's UI message stream. Failures before the run starts (an unknown
 * agent, a bad body, a busy session, an unknown approval) throw, so they are answered as JSON envelopes.
 */
async function sendUiStream(service: AgentService, req: Request, res: Response, options: EndpointOptions) {
  const request = apiRequest(req, res);
  const { signal } = request;
  const agentId = request.params.agentId ?? '';
  const { events, input, resumed } = await chatRun(service, request);
  const stream = uiMessageStream(events, {
    ...(resumed && { resumed }),
    onDone: (result) => keepLog(res, runLog(agentId, input, result), options.logContent),
    errorText: (error) => {
      const { response } = errorResponse(error, options);
      if (response.status >= 500 && !signal?.aborted) options.logServerError(req, res, error, response.status);
      return response.body.success ? '' : response.body.error;
    },
  });
  // A comment line now and then keeps proxies from closing a quiet stream, as for a streamed run.
  // As the run's events: no cache and no proxy may keep or transform them.
  await pipeUIMessageStreamToResponse({
    response: res,
    stream,
    keepAliveMs: 15_000,
    headers: { 'Cache-Control': 'no-cache, no-transform' },
  });
}

/**
 * The chat route: the AI SDK's shape (messages with `parts`) answered with its UI message stream;
 * the `truffle-ai` SDK's shape, and either shape with `"background": true`, answered as JSON through
 * `handler` (kept under `Idempotency-Key`).
 */
export function chatEndpoint(service: AgentService, handler: ApiHandler, options: EndpointOptions): RequestHandler {
  return async function agentHostChat(req, res) {
    if (!isUiChat(req.body) || wantsBackground(req.body)) {
      const response = await handler(apiRequest(req, res));
      keepLog(res, response.log, options.logContent);
      return send(req, res, response);
    }
    if (req.get('idempotency-key') !== undefined) {
      return send(req, res, refusal('invalid_input', 'Idempotency-Key is not supported for streamed chats'));
    }
    await sendUiStream(service, req, res, options);
  };
}
