import type { AgentService, RunResult } from '@agenthost/core';
import { chatRequest } from './chat-bodies.js';
import { inputLogText } from './chat-input-parts.js';
import { type ApiResponse, type SuccessEnvelope, success } from './envelope.js';
import { type ApiHandler, runLog } from './handlers.js';

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
 * `POST /agents/{agentId}/chat` answered as JSON (the `truffle-ai` SDK's shape): one run on the last
 * user message, with the earlier messages as its history when no session is continued.
 */
export function chatHandler(service: AgentService): ApiHandler {
  return async function chatAgent({ accountId, params, body, signal }) {
    const agentId = params.agentId ?? '';
    const chat = await chatRequest(service, accountId, agentId, body);
    const result = await service.runAgent(accountId, agentId, chat.input, {
      ...(signal && { signal }),
      ...(chat.history && { history: chat.history }),
    });
    return { ...chatReply(result), log: runLog(agentId, inputLogText(chat.input.input), result) };
  };
}
