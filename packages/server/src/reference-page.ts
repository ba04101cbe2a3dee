import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { apiReference } from '@scalar/express-api-reference';
import type express from 'express';

/** Where the reference page is served. */
export const REFERENCE_PAGE_PATH = '/docs';
/** Where the page's script is served, from this server rather than a CDN. */
export const REFERENCE_SCRIPT_PATH = '/docs/api-reference.js';

/**
 * The browser build of Scalar's API reference that `@scalar/api-reference` ships: one file that
 * registers `window.Scalar`, its styles inlined.
 */
function browserBuild(): { root: string; file: string } {
  // The package exports no path to it, so it is found beside the package's entry point.
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  const root = join(dirname(entry), 'browser');
  if (!existsSync(join(root, 'standalone.js')))
    throw new Error(`mountReferencePage: @scalar/api-reference has no browser build in ${root}`);
  return { root, file: 'standalone.js' };
}

/**
 * Serves an interactive reference of the HTTP API at `/docs`: Scalar's API reference, reading the
 * OpenAPI document at `specUrl`, with its "try it" client sending requests to this server. The
 * page works without internet access: its script is served by this server (at
 * {@link REFERENCE_SCRIPT_PATH}), it loads no web fonts, sends no telemetry, and leaves out the parts
 * that need Scalar's hosted services.
 *
 * @example
 * mountReferencePage(app, '/api/v1/openapi.json');
 *
 * @param specUrl Where the page fetches the OpenAPI document, e.g. `/api/v1/openapi.json`.
 * @throws TypeError for a `specUrl` that is not a plain URL; Error when the browser build is missing.
 */
export function mountReferencePage(app: express.Express, specUrl: string): void {
  // The URL is written into an inline script: nothing that could close the tag is let in.
  if (typeof specUrl !== 'string' || specUrl.length === 0 || /[<>"'\s]/.test(specUrl)) {
    throw new TypeError(`mountReferencePage: specUrl must be a URL, got ${JSON.stringify(specUrl)}`);
  }
  const { root, file } = browserBuild();
  // Sent relative to `root`: the path to it may hold dot-folders (pnpm's `.pnpm`), which are refused
  // in the part of a path that is not the root. Revalidated by ETag on each load, so a newer build
  // is picked up at once after an upgrade.
  app.get(REFERENCE_SCRIPT_PATH, function agentHostReferenceScript(_req, res) {
    res.type('application/javascript').sendFile(file, { root, maxAge: 0 });
  });
  app.get(`${REFERENCE_SCRIPT_PATH}.map`, function agentHostReferenceScriptMap(_req, res) {
    res.type('application/json').sendFile(`${file}.map`, { root, maxAge: 0 });
  });
  // Nothing that reaches Scalar's services: no telemetry, web fonts, hosted developer tools (share,
  // deploy), MCP generator or AI chat. The bundle reads `agent.disabled`, which the configuration
  // types of this version do not declare yet; without it the page offers the chat on localhost.
  const offline = {
    telemetry: false,
    withDefaultFonts: false,
    showDeveloperTools: 'never' as const,
    mcp: { disabled: true },
    agent: { disabled: true },
  };
  app.get(
    REFERENCE_PAGE_PATH,
    apiReference({
      pageTitle: 'agenthost API reference',
      url: specUrl,
      // Setting `cdn` selects the single-file build, loaded from this server.
      cdn: REFERENCE_SCRIPT_PATH,
      ...offline,
    }),
  );
}
