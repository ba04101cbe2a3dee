import { type Tool, tool } from 'ai';
import { z } from 'zod';

/** Options of {@link webSearchTool}. */
export interface WebSearchToolOptions {
  /** The Tavily API key, usually `process.env.TAVILY_API_KEY`. Sent only in the `Authorization` header. */
  apiKey: string;
  /** The API's base URL (default `https://api.tavily.com`); tests point it at a local server. */
  baseURL?: string;
  /** The fetch implementation (default: the global `fetch`). */
  fetch?: typeof fetch;
  /** How many results to ask for, 1 to 20 (default 5). */
  maxResults?: number;
  /** How long one search may take, in milliseconds (default 15000). */
  timeoutMs?: number;
}

/** What the web_search tool receives from the model. */
export interface WebSearchInput {
  /** What to search for. */
  query: string;
}

/** One search result as the model sees it. */
export interface WebSearchResult {
  title: string;
  url: string;
  /** The relevant extract of the page, at most {@link MAX_RESULT_CONTENT_LENGTH} characters. */
  content: string;
  /** Tavily's relevance score, 0 to 1. */
  score: number;
}

/** What the web_search tool returns to the model. */
export interface WebSearchOutput {
  query: string;
  results: WebSearchResult[];
}

/** Result content longer than this is cut (with an ellipsis) so a search does not flood the context. */
export const MAX_RESULT_CONTENT_LENGTH = 1000;

const DEFAULT_BASE_URL = 'https://api.tavily.com';

const tavilyResponseSchema = z.object({
  results: z.array(
    z.object({
      title: z.string().catch(''),
      url: z.string(),
      content: z.string().catch(''),
      score: z.number().catch(0),
    }),
  ),
});

function trimContent(content: string): string {
  const text = content.trim();
  return text.length > MAX_RESULT_CONTENT_LENGTH ? `${text.slice(0, MAX_RESULT_CONTENT_LENGTH - 1)}…` : text;
}

/** A short reason from an error body (Tavily sends `{"detail":{"error":"..."}}`), with the key removed. */
async function errorDetail(response: Response, apiKey: string): Promise<string> {
  const text = await response.text().catch(() => '');
  let detail = text;
  try {
    const body = JSON.parse(text) as { detail?: { error?: unknown } | string; error?: unknown; message?: unknown };
    const candidate =
      typeof body.detail === 'string' ? body.detail : (body.detail?.error ?? body.error ?? body.message);
    if (typeof candidate === 'string') detail = candidate;
  } catch {
    // Not JSON: keep the text itself.
  }
  detail = detail.replaceAll(apiKey, '[redacted]').replace(/\s+/g, ' ').trim().slice(0, 200);
  return detail ? `: ${detail}` : '';
}

/**
 * The `web_search` tool: searches the web through the Tavily search API (`POST /search`, basic depth)
 * and returns title, URL, an extract and a score per result. HTTP errors, timeouts and unreadable
 * responses are thrown as errors that name the status but never contain the API key.
 *
 * @example staticTools({ search: { web_search: webSearchTool({ apiKey: process.env.TAVILY_API_KEY! }) } })
 */
export function webSearchTool(options: WebSearchToolOptions): Tool<WebSearchInput, WebSearchOutput> {
  const { apiKey, timeoutMs = 15_000, maxResults = 5 } = options;
  if (!apiKey) throw new TypeError('webSearchTool needs a Tavily API key');
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 20)
    throw new RangeError('maxResults must be an integer from 1 to 20');
  const endpoint = `${(options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/search`;
  const fetchImpl = options.fetch ?? globalThis.fetch;

  return tool({
    description:
      'Searches the web and returns the most relevant pages with a title, URL and an extract of each. Use it for current events and facts you are unsure of.',
    inputSchema: z.object({
      query: z.string().min(1).max(400).describe('What to search for, as you would type it into a search engine'),
    }),
    execute: async ({ query }, { abortSignal }) => {
      if (!query.trim()) throw new Error('The search query is empty');
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = abortSignal ? AbortSignal.any([abortSignal, timeout]) : timeout;
      let response: Response;
      try {
        response = await fetchImpl(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify({ query, max_results: maxResults, search_depth: 'basic' }),
          signal,
        });
      } catch (error) {
        if (timeout.aborted) throw new Error(`Web search timed out after ${timeoutMs} ms`);
        if (abortSignal?.aborted) throw new Error('Web search was cancelled');
        // Say only what kind of failure it was: network errors can carry request details.
        const code = (error as { cause?: { code?: unknown } })?.cause?.code;
        throw new Error(`Web search request failed${typeof code === 'string' ? ` (${code})` : ''}`);
      }
      if (!response.ok) {
        throw new Error(`Web search failed with HTTP ${response.status}${await errorDetail(response, apiKey)}`);
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        if (timeout.aborted) throw new Error(`Web search timed out after ${timeoutMs} ms`);
        throw new Error('Web search returned a response that is not JSON');
      }
      const parsed = tavilyResponseSchema.safeParse(body);
      if (!parsed.success) throw new Error('Web search returned a response without a results list');
      return {
        query,
        results: parsed.data.results
          .slice(0, maxResults)
          .map((r) => ({ title: r.title, url: r.url, content: trimContent(r.content), score: r.score })),
      };
    },
  });
}
