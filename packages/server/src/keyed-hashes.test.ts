import { createHash, createHmac, randomBytes } from 'node:crypto';
import { clearRedis, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from './config.js';
import { type RunningServer, startServer } from './test-server.js';

// A short configured key: exactly the kind whose bare digest could be guessed offline.
const KEY = `short-${randomBytes(5).toString('hex')}`;
const prefix = runNamespace('keyed');
let n = 0;
const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close(1_000)));
});
afterAll(() => clearRedis(prefix));

const sha256 = (text: string) => [
  createHash('sha256').update(text).digest('hex'),
  createHash('sha256').update(text).digest('base64url'),
];
const hmac = (secret: string, text: string) =>
  createHmac('sha256', secret).update(`rate-limit:${text}`).digest('base64url');

async function start(namespace: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer(
    loadConfig({
      PORT: '0',
      AGENTHOST_STORE: REDIS_URL,
      AGENTHOST_STORE_NAMESPACE: namespace,
      AGENTHOST_API_KEYS: `acme:${KEY}`,
      AGENTHOST_RATE_LIMIT: '5',
      ...env,
    }),
  );
  running.push(server);
  return server;
}

async function statuses(servers: RunningServer[], count: number, key = KEY): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${servers[i % servers.length]!.url}/agents`, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

/** Every Redis name under the namespace, with its value where it is a string. */
async function dump(namespace: string): Promise<Map<string, string>> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    const names = await client.keys(`${namespace}:*`);
    const values = await Promise.all(
      names.map(async (name) => ((await client.type(name)) === 'string' ? ((await client.get(name)) ?? '') : '')),
    );
    return new Map(names.map((name, i) => [name, values[i]!]));
  } finally {
    client.destroy();
  }
}

describe('storage names derived from an API key (Redis)', () => {
  test("a short key's rate-limit counter is named by the HMAC under the stored secret; no name holds a bare digest of the key", async () => {
    const namespace = `${prefix}-${++n}`;
    const server = await start(namespace);
    expect(await statuses([server], 3)).toStrictEqual([200, 200, 200]);
    const secret = await server.store.store.getHostSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const names = [...(await dump(namespace)).keys()];
    expect(names.filter((name) => name.includes(':ratelimit:'))).toStrictEqual([
      `${namespace}:ratelimit:key:key:${hmac(secret!, KEY)}`,
    ]);
    for (const secretish of [KEY, ...sha256(KEY)])
      expect(names.filter((name) => name.includes(secretish))).toStrictEqual([]);
  });

  test('a configured AGENTHOST_SECRET names the counters, and nothing stores it', async () => {
    const namespace = `${prefix}-${++n}`;
    const configured = randomBytes(24).toString('hex');
    const server = await start(namespace, { AGENTHOST_SECRET: configured });
    expect(await statuses([server], 1)).toStrictEqual([200]);
    const stored = await dump(namespace);
    expect([...stored.keys()].filter((name) => name.includes(':ratelimit:'))).toStrictEqual([
      `${namespace}:ratelimit:key:key:${hmac(configured, KEY)}`,
    ]);
    expect(await server.store.store.getHostSecret()).toBeUndefined();
    expect(
      [...stored].filter(([name, value]) => name.includes(configured) || value.includes(configured)),
    ).toStrictEqual([]);
  });

  test("two servers starting at once on one Redis make one secret and hold one key's limit together", async () => {
    const namespace = `${prefix}-${++n}`;
    const servers = await Promise.all([start(namespace), start(namespace)]);
    const secrets = await Promise.all(servers.map((s) => s.store.store.getHostSecret()));
    expect(secrets[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secrets[1]).toBe(secrets[0]);
    expect(await statuses(servers, 8)).toStrictEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });

  test("a restart keeps the secret, and with it the key's count", async () => {
    const namespace = `${prefix}-${++n}`;
    const before = await start(namespace);
    const secret = await before.store.store.getHostSecret();
    expect(await statuses([before], 3)).toStrictEqual([200, 200, 200]);
    await running.pop()!.close(1_000);
    const after = await start(namespace);
    expect(await after.store.store.getHostSecret()).toBe(secret);
    expect(await statuses([after], 3)).toStrictEqual([200, 200, 429]);
  });

  test('a managed key stored under its bare digest still works, moves to its keyed hash on first use, and can be revoked', async () => {
    const namespace = `${prefix}-${++n}`;
    const server = await start(namespace);
    const key = `ah_${randomBytes(24).toString('base64url')}`;
    const [hex] = sha256(key);
    // As a server before keyed hashes stored it.
    await server.store.store.createKey({
      key_id: 'key_legacy',
      account_id: 'legacy',
      name: null,
      prefix: key.slice(0, 9),
      digest: hex!,
      scopes: ['agents:read', 'agents:write', 'agents:run'],
      created_at: '2026-01-01T00:00:00.000Z',
      last_used_at: null,
      revoked_at: null,
    });
    expect([...(await dump(namespace))].some(([name, value]) => name.includes(hex!) || value.includes(hex!))).toBe(
      true,
    );

    expect(await statuses([server], 2, key)).toStrictEqual([200, 200]);
    const stored = await dump(namespace);
    expect(
      [...stored].filter(([name, value]) => name.includes(hex!) || value.includes(hex!) || value.includes(key)),
    ).toStrictEqual([]);
    const listed = await server.keys.listKeys();
    expect(listed).toStrictEqual([
      {
        key_id: 'key_legacy',
        account_id: 'legacy',
        name: null,
        prefix: key.slice(0, 9),
        scopes: ['agents:read', 'agents:write', 'agents:run'],
        created_at: '2026-01-01T00:00:00.000Z',
        last_used_at: expect.any(String),
        revoked_at: null,
      },
    ]);
    await server.keys.revokeKey('key_legacy');
    expect(await statuses([server], 1, key)).toStrictEqual([401]);
  });
});
