import type { AgentService } from '@agenthost/core';
import { wireAgent } from './agent-aliases.js';
import { type ApiResponse, success } from './envelope.js';
import { metadataQuery } from './metadata-query.js';
import { queryInt, queryString } from './query-params.js';

/**
 * `GET /agents`: without paging parameters, every agent of the account, oldest first (as the
 * contract shows); with `limit`, `after` or `order`, one page, with `X-Next-Cursor` and `Link` to the
 * next. `metadata[key]=value` filters either way.
 */
export async function listAgents(
  service: AgentService,
  { accountId, query, baseUrl }: { accountId: string; query: Record<string, unknown>; baseUrl?: string | undefined },
): Promise<ApiResponse> {
  const metadata = metadataQuery(query);
  if (!['limit', 'after', 'order'].some((name) => query[name] !== undefined))
    return success((await service.listAgents(accountId, metadata ? { metadata } : {})).map(wireAgent));
  const limit = queryInt(query, 'limit');
  const cursor = queryString(query, 'after');
  const order = queryString(query, 'order');
  const page = await service.listAgentsPage(accountId, {
    ...(limit !== undefined && { limit }),
    ...(cursor !== undefined && { cursor }),
    ...(order !== undefined && { order: order as 'asc' }),
    ...(metadata && { metadata }),
  });
  const response = success(page.agents.map(wireAgent));
  if (page.next_cursor !== null) {
    const next = new URLSearchParams({
      ...(limit !== undefined && { limit: String(limit) }),
      ...(order !== undefined && { order }),
      ...Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [`metadata[${k}]`, v])),
      after: page.next_cursor,
    });
    response.headers = { 'X-Next-Cursor': page.next_cursor, Link: `<${baseUrl ?? ''}/agents?${next}>; rel="next"` };
  }
  return response;
}
