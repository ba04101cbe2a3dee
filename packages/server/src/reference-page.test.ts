import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { mountReferencePage, REFERENCE_SCRIPT_PATH } from './reference-page.js';

const SPEC_URL = '/api/v1/openapi.json';

function app() {
  const host = express();
  mountReferencePage(host, SPEC_URL);
  return host;
}

describe('the reference page', () => {
  test('GET /docs is an HTML page that reads the spec URL and loads a script this app serves', async () => {
    const host = app();
    const page = await request(host).get('/docs');
    expect([page.status, page.headers['content-type']]).toStrictEqual([200, 'text/html; charset=utf-8']);
    expect(page.text).toContain('<div id="app"></div>');
    expect(page.text).toContain(`"url": "${SPEC_URL}"`);
    expect(page.text).toContain('Scalar.createApiReference(');

    const sources = [...page.text.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toStrictEqual([REFERENCE_SCRIPT_PATH]);
    const script = await request(host).get(sources[0]!);
    expect([script.status, script.headers['content-type']]).toStrictEqual([
      200,
      'application/javascript; charset=utf-8',
    ]);
    const body = script.text;
    expect(body.length).toBeGreaterThan(100_000);
    // The browser build registers the global the page calls.
    expect(body).toContain('window.Scalar={createApiReference:');
  });

  test('the page needs nothing from elsewhere: no CDN, no web fonts, no telemetry', async () => {
    const page = await request(app()).get('/docs');
    expect(page.text).not.toMatch(/<(?:script|link)[^>]+(?:src|href)="(?:https?:)?\/\//);
    expect(page.text).not.toContain('cdn.jsdelivr.net');
    expect(page.text).toContain('"withDefaultFonts": false');
    expect(page.text).toContain('"telemetry": false');
  });

  test('the script is revalidated, and its source map is served too', async () => {
    const host = app();
    const first = await request(host).get(REFERENCE_SCRIPT_PATH);
    expect(first.headers.etag).toBeTruthy();
    const again = await request(host).get(REFERENCE_SCRIPT_PATH).set('if-none-match', first.headers.etag!);
    expect(again.status).toBe(304);
    const map = await request(host).get(`${REFERENCE_SCRIPT_PATH}.map`);
    expect([map.status, map.headers['content-type']]).toStrictEqual([200, 'application/json; charset=utf-8']);
  });

  test.each([['<script>'], ['/x" onload="y'], ['']])('refuses the spec URL %j', (url) => {
    expect(() => mountReferencePage(express(), url)).toThrow(TypeError);
  });
});
