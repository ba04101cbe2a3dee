import { type AgentService, InvalidInputError, type RunResult } from '@agenthost/core';
import { answersApprovals, chatRequest, isUiChat, uiChatRequest } from './chat-bodies.js';
import { inputLogText } from './chat-input-parts.js';
import { type ApiResponse, type SuccessEnvelope, success } from './envelope.js';
import { type ApiHandler, type ApiRequest, acceptedRun, runLog } from './handlers.js';
import { wantsBackground } from './http-bodies.js';

/** The answer to the `truffle-ai` SDK's `chat()`: the envelope, with `message` and `session_id` also at the top, where the SDK reads them. */
function chatReply(result: RunResult): ApiResponse {
  const { output: message, session_id, status, pending_approvals, metadata } = result;
  const body: SuccessEnvelope & { message: string; session_id: string } = {
    ...success({ message, session_id, status, pending_approvals, metadata }).body,
    message,
    session_id,
  } as SuccessEnvelope & { message: string; session_id: string };
  return { status: body.status, body };
}

/**
 * A chat with `"background": true`, of either shape: a background run on the last user message
 * (with the `truffle-ai` shape's earlier messages as its history when no session is continued),
 * answered 202 with the run. Answers to approvals are not started in the background (400).
 */
async function backgroundChat(service: AgentService, request: ApiRequest): Promise<ApiResponse> {
  const { accountId, body, sessionId } = request;
  const agentId = request.params.agentId ?? '';
  const chat = isUiChat(body)
    ? await uiChatRequest(service, accountId, agentId, body, sessionId)
    : await chatRequest(service, accountId, agentId, body);
  if (answersApprovals(chat))
    throw new InvalidInputError({
      details: {
        background: {
          message: 'background runs start on a user message: send the answers to approvals without background',
          path: ['background'],
        },
      },
    });
  const run = await service.startRun(accountId, agentId, chat.input, chat.history ? { history: chat.history } : {});
  return acceptedRun(agentId, run);
}

/**
 * `POST /agents/{agentId}/chat` answered as JSON (the `truffle-ai` SDK's shape): one run on the last
 * user message, with the earlier messages as its history when no session is continued; with
 * `"background": true` (either shape), a background run answered at once (202).
 */
export function chatHandler(service: AgentService): ApiHandler {
  return async function chatAgent(request) {
    if (wantsBackground(request.body)) return backgroundChat(service, request);
    const { accountId, params, body, signal } = request;
    const agentId = params.agentId ?? '';
    const chat = await chatRequest(service, accountId, agentId, body);
    const result = await service.runAgent(accountId, agentId, chat.input, {
      ...(signal && { signal }),
      ...(chat.history && { history: chat.history }),
    });
    return { ...chatReply(result), log: runLog(agentId, inputLogText(chat.input.input), result) };
  };
}
