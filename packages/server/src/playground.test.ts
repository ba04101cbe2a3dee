import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { playgroundDir } from '@agenthost/playground';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentHost, createAgentHost } from './host.js';
import { PLAYGROUND_CSP } from './playground.js';

// The playground's files come from its build (pnpm build); these tests read what it wrote.
const built = (() => {
  try {
    return readdirSync(join(playgroundDir, 'assets'));
  } catch {
    return [];
  }
})();
const script = built.find((name) => name.endsWith('.js'));

describe.skipIf(!script)('the standalone app serves the playground', () => {
  let host: AgentHost;
  beforeAll(async () => {
    host = await createAgentHost(
      { store: 'memory', apiKeys: 'acme:playground-test-key-0123456789' },
      { requestLog: false },
    );
  });
  afterAll(() => host.close());

  test('GET / is a page that links to the playground and the reference, loading nothing', async () => {
    const page = await request(host.app).get('/');
    expect([page.status, page.headers['content-type'], page.headers['content-security-policy']]).toStrictEqual([
      200,
      'text/html; charset=utf-8',
      "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ]);
    expect([...page.text.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1])).toStrictEqual(['/playground/', '/docs']);
  });

  test('/playground redirects to /playground/, whose page is revalidated on each load under a strict CSP', async () => {
    const redirect = await request(host.app).get('/playground?x=1');
    expect([redirect.status, redirect.headers.location]).toStrictEqual([301, '/playground/?x=1']);
    const page = await request(host.app).get('/playground/');
    expect([
      page.status,
      page.headers['content-type'],
      page.headers['cache-control'],
      page.headers['content-security-policy'],
      page.headers['x-content-type-options'],
    ]).toStrictEqual([200, 'text/html; charset=utf-8', 'no-cache', PLAYGROUND_CSP, 'nosniff']);
    expect(PLAYGROUND_CSP).toContain("connect-src 'self'");
    // Every file it loads is relative (served from here), none from another origin
    // (besides its empty inline icon, which spares a favicon request).
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((s) => s !== 'data:,');
    expect(sources.sort()).toStrictEqual(built.map((name) => `./assets/${name}`).sort());
  });

  test('the hashed assets are served with their types and cached for a year', async () => {
    const asset = await request(host.app).get(`/playground/assets/${script}`);
    expect([asset.status, asset.headers['content-type'], asset.headers['cache-control']]).toStrictEqual([
      200,
      'text/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    const style = built.find((name) => name.endsWith('.css'));
    const css = await request(host.app).get(`/playground/assets/${style}`);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  test('an unknown file of the playground is a 404 envelope', async () => {
    const missing = await request(host.app).get('/playground/assets/nope.js');
    expect([missing.status, missing.body]).toStrictEqual([
      404,
      { success: false, error: 'Not found: /playground/assets/nope.js', status: 404, code: 'not_found' },
    ]);
  });

  test('nothing outside the playground folder is served: encoded dots, dotfiles and folders are 404s', async () => {
    for (const path of [
      '/playground/%2e%2e/package.json',
      '/playground/%2e%2e%2fpackage.json',
      '/playground/..%2f..%2fpackage.json',
      '/playground/%2e%2e/%2e%2e/%2e%2e/package.json',
      '/playground/.vite/manifest.json',
      '/playground/assets/',
    ]) {
      const answer = await request(host.app).get(path);
      expect([path, answer.status, answer.body.code]).toStrictEqual([path, 404, 'not_found']);
    }
  });

  test('host.playground mounts in another app; AGENTHOST_PLAYGROUND=false leaves it out and / links to /docs only', async () => {
    expect(host.playground).toBeDefined();
    const off = await createAgentHost({ store: 'memory', playground: false }, { requestLog: false });
    try {
      expect(off.playground).toBeUndefined();
      expect((await request(off.app).get('/playground/')).status).toBe(404);
      const page = await request(off.app).get('/');
      expect([...page.text.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1])).toStrictEqual(['/docs']);
    } finally {
      await off.close();
    }
  });
});
