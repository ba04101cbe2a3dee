import type { AgentService } from '@agenthost/core';
import { success, type ApiResponse } from './envelope.js';

/** A request as the handlers see it: already authenticated and parsed, with no framework in it. */
export interface ApiRequest {
  accountId: string;
  params: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
}

/** A framework-neutral handler: parse input, call the service, build the envelope. */
export type ApiHandler = (request: ApiRequest) => Promise<ApiResponse>;

/** The API's operations over a service; errors are thrown and become envelopes in one place. */
export function createHandlers(service: AgentService) {
  return {
    createAgent: async ({ accountId, body }) => {
      const agent = await service.createAgent(accountId, body as never);
      return success({ agent_id: agent.agent_id, created_at: agent.created_at });
    },
    listAgents: async ({ accountId }) => success(await service.listAgents(accountId)),
    getAgent: async ({ accountId, params }) => success(await service.getAgent(accountId, params.agentId ?? '')),
    runAgent: async ({ accountId, params, body, signal }) =>
      success(await service.runAgent(accountId, params.agentId ?? '', body as never, signal ? { signal } : {})),
  } satisfies Record<string, ApiHandler>;
}
