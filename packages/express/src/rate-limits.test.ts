import { createHmac } from 'node:crypto';
import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import type { Store } from 'express-rate-limit';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';
const SECRET = 'a-deployment-secret-of-32-chars!';

/** A counter store shared by nothing, that notes the name of every counter it is asked to move. */
function notingStore(limiter: string, names: string[]): Store {
  const hits = new Map<string, number>();
  return {
    increment(key) {
      names.push(`${limiter} ${key}`);
      hits.set(key, (hits.get(key) ?? 0) + 1);
      return { totalHits: hits.get(key)!, resetTime: new Date(Date.now() + 60_000) };
    },
    decrement: () => {},
    resetKey: () => {},
  };
}

function app(rateLimit: Parameters<typeof createAgentRouter>[1]['rateLimit']) {
  const a = express();
  const service = new AgentService({ store: new MemoryStore(), models: echoModels() });
  a.use(
    '/api/v1',
    createAgentRouter(service, {
      resolveKey: staticKeys([
        { account: 'alpha', key: KEY_A },
        { account: 'beta', key: KEY_B },
      ]),
      ...(rateLimit && { rateLimit }),
    }),
  );
  return a;
}

describe('rate limits: limiting requests', () => {
  test('a key past its limit gets 429 with Retry-After and RateLimit headers; other keys go on', async () => {
    const server = app({ perKey: { limit: 3, windowMs: 60_000 } });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await request(server).get('/api/v1/agents').set('x-api-key', KEY_A)).status);
    expect(statuses).toStrictEqual([200, 200, 200, 429]);
    const limited = await request(server).get('/api/v1/agents').set('x-api-key', KEY_A);
    expect([limited.status, limited.headers['content-type'], limited.body]).toStrictEqual([
      429,
      'application/json; charset=utf-8',
      { success: false, error: 'Rate limit reached for this API key; retry later', code: 'rate_limited', status: 429 },
    ]);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(50);
    expect(limited.headers.ratelimit).toMatch(/^limit=3, remaining=0, reset=\d+$/);
    expect(limited.headers['ratelimit-policy']).toBe('3;w=60');
    const other = await request(server).get('/api/v1/agents').set('x-api-key', KEY_B);
    expect([other.status, other.headers.ratelimit]).toStrictEqual([
      200,
      expect.stringMatching(/^limit=3, remaining=2, reset=\d+$/),
    ]);
  });

  test('failed authentications are limited per address; valid keys, even many at once, never count', async () => {
    const server = app({ failedAuth: { limit: 2, windowMs: 60_000 }, perKey: { limit: 1000, windowMs: 60_000 } });
    const burst = await Promise.all(
      Array.from({ length: 50 }, () =>
        request(server)
          .get('/api/v1/agents')
          .set('x-api-key', KEY_A)
          .then((r) => r.status),
      ),
    );
    expect(new Set(burst)).toStrictEqual(new Set([200]));
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await request(server).get('/api/v1/agents').set('x-api-key', `guess-${i}`)).status);
    expect(statuses).toStrictEqual([401, 401, 429, 429]);
    const guess = await request(server).get('/api/v1/agents');
    expect([guess.status, guess.body.error, Number(guess.headers['retry-after']) > 0]).toStrictEqual([
      429,
      'Too many failed authentication attempts from this address; retry later',
      true,
    ]);
    // Guessing stopped; a valid key from the same address still works.
    expect((await request(server).get('/api/v1/agents').set('x-api-key', KEY_A)).status).toBe(200);
  });
});

describe('rate limits: counter names and configuration', () => {
  test('per-key counters are named by the keyed hash of the key, never by the key or a bare digest of it', async () => {
    const names: string[] = [];
    const server = app({
      perKey: { limit: 10, windowMs: 60_000 },
      failedAuth: { limit: 10, windowMs: 60_000 },
      keySecret: SECRET,
      store: (limiter) => notingStore(limiter, names),
    });
    expect((await request(server).get('/api/v1/agents').set('x-api-key', KEY_A)).status).toBe(200);
    expect((await request(server).get('/api/v1/agents').set('x-api-key', 'wrong-key')).status).toBe(401);
    const hmac = createHmac('sha256', SECRET).update(`rate-limit:${KEY_A}`).digest('base64url');
    expect(names).toStrictEqual([`key key:${hmac}`, expect.stringMatching(/^auth auth:[0-9a-f.:]+$/)]);
  });

  test('a shared counter store needs a keySecret of 32+ characters, or servers would count a key apart', () => {
    const store = () => notingStore('x', []);
    expect(() => app({ perKey: { limit: 5, windowMs: 60_000 }, store })).toThrow(
      new TypeError(
        "createAgentRouter: rateLimit.keySecret is required with a shared counter store, so that every server names a key's counter alike",
      ),
    );
    expect(() => app({ perKey: { limit: 5, windowMs: 60_000 }, store, keySecret: 'short' })).toThrow(
      new TypeError('createAgentRouter: rateLimit.keySecret must be a string of at least 32 characters'),
    );
    // Counting failed authentications needs no secret: it is per address, not per key.
    expect(() => app({ failedAuth: { limit: 5, windowMs: 60_000 }, store })).not.toThrow();
  });

  test('no limits unless configured; bad limits are refused at creation', () => {
    expect(() => app({ perKey: { limit: 0, windowMs: 60_000 } })).toThrow(
      'createAgentRouter: rateLimit.perKey.limit must be a positive integer',
    );
    expect(() => app({ failedAuth: { limit: 5, windowMs: 10 } })).toThrow(
      'createAgentRouter: rateLimit.failedAuth.windowMs must be at least 1000',
    );
  });
});
