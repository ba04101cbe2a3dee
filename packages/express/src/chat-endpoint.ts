import type { AgentService } from '@agenthost/core';
import { pipeUIMessageStreamToResponse } from 'ai';
import type { Request, RequestHandler, Response } from 'express';
import { apiRequest } from './api-request.js';
import { chatRequest, isUiChat } from './chat-bodies.js';
import { inputLogText } from './chat-input-parts.js';
import type { EndpointOptions } from './endpoint-options.js';
import { refusal } from './envelope.js';
import { type ApiHandler, runLog } from './handlers.js';
import { errorResponse } from './http-errors.js';
import { keepLog, send } from './request-state.js';
import { uiMessageStream } from './ui-message-stream.js';

/**
 * Streams a chat as the AI SDK's UI message stream. Failures before the run starts (an unknown
 * agent, a bad body, a busy session) throw, so they are answered as JSON envelopes.
 */
async function sendUiStream(service: AgentService, req: Request, res: Response, options: EndpointOptions) {
  const request = apiRequest(req, res);
  const { accountId, signal } = request;
  const agentId = request.params.agentId ?? '';
  const chat = await chatRequest(service, accountId, agentId, request.body, request.sessionId);
  const events = await service.streamAgent(accountId, agentId, chat.input, signal ? { signal } : {});
  const stream = uiMessageStream(events, {
    onDone: (result) => keepLog(res, runLog(agentId, inputLogText(chat.input.input), result), options.logContent),
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
 * the `truffle-ai` SDK's shape answered as JSON through `handler` (kept under `Idempotency-Key`).
 */
export function chatEndpoint(service: AgentService, handler: ApiHandler, options: EndpointOptions): RequestHandler {
  return async function agentHostChat(req, res) {
    if (!isUiChat(req.body)) {
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
