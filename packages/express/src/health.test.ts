import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { createHealthRouter } from './health.js';

describe('health', () => {
  test('/healthz is alive; /readyz is ready only when every check answers and the server is not draining', async () => {
    let storageUp = true;
    let draining = false;
    const app = express().use(
      createHealthRouter({
        checks: {
          storage: async () => {
            if (!storageUp) throw new Error('ECONNREFUSED');
          },
          slow: () => new Promise((resolve) => setTimeout(resolve, 10)),
        },
        draining: () => draining,
        timeoutMs: 500,
      }),
    );
    expect((await request(app).get('/healthz')).body).toStrictEqual({
      success: true,
      data: { status: 'alive' },
      status: 200,
    });
    const ready = await request(app).get('/readyz');
    expect([ready.status, ready.headers['cache-control'], ready.body]).toStrictEqual([
      200,
      'no-store',
      { success: true, data: { status: 'ready', checks: { storage: 'ok', slow: 'ok' } }, status: 200 },
    ]);
    storageUp = false;
    const down = await request(app).get('/readyz');
    expect([down.status, down.headers['retry-after'], down.body]).toStrictEqual([
      503,
      '5',
      { success: false, error: 'Not ready: storage unavailable', code: 'not_ready', status: 503 },
    ]);
    storageUp = true;
    draining = true;
    expect((await request(app).get('/readyz')).body).toStrictEqual({
      success: false,
      error: 'Not ready: shutting down',
      code: 'not_ready',
      status: 503,
    });
    expect((await request(app).get('/healthz')).status).toBe(200);
  });

  test('a check that hangs fails within its bound', async () => {
    const app = express().use(createHealthRouter({ checks: { storage: () => new Promise(() => {}) }, timeoutMs: 100 }));
    const started = Date.now();
    expect((await request(app).get('/readyz')).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
