/**
 * The OpenAPI 3.1 document of the HTTP API, built from the same zod schemas that validate requests.
 * (Filled in by the OpenAPI work; the router serves whatever this returns at `/openapi.json`.)
 */
export function openApiDocument(options: { serverUrl?: string } = {}): Record<string, unknown> {
  return { openapi: '3.1.0', info: { title: 'agenthost', version: '0.1.0' }, servers: options.serverUrl ? [{ url: options.serverUrl }] : [], paths: {} };
}
