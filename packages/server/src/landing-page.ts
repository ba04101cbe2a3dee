import type express from 'express';

/** The CSP of the landing page: it loads nothing at all (its empty icon spares a favicon request). */
const LANDING_CSP = "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page at `/`: where the playground and the API reference are. */
function landingHtml(playground: string | undefined, reference: string): string {
  const items = [
    ...(playground ? [`<li><a href="${playground}/">Playground</a>: create an agent and chat with it</li>`] : []),
    `<li><a href="${reference}">API reference</a>: every route, with a client to try them</li>`,
  ];
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>agenthost</title><link rel="icon" href="data:,"></head>
<body>
<h1>agenthost</h1>
<ul>
${items.join('\n')}
</ul>
<p>The API is at <code>/api/v1</code>.</p>
</body>
</html>
`;
}

/**
 * Answers `GET /` with a small page linking to the playground (when served, at `playground`) and to
 * the API reference at `reference`.
 */
export function landingPage(playground: string | undefined, reference: string): express.RequestHandler {
  const html = landingHtml(playground, reference);
  return function agentHostLandingPage(_req, res) {
    res
      .set({
        'Content-Security-Policy': LANDING_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      })
      .type('text/html; charset=utf-8')
      .send(html);
  };
}
