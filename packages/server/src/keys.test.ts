import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clearPostgres, clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { api, homeFor, killAll, startServer } from './test-process.js';

const CLI = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'agenthost-keys-'));
const namespace = runNamespace('keys');
afterEach(killAll);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await clearRedis(namespace);
  await clearPostgres(namespace);
});

function cli(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...homeFor(env), ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const create = (env: Record<string, string>, ...args: string[]) => {
  const r = cli(env, 'keys', 'create', '--json', ...args);
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { key: string; key_id: string; prefix: string };
};

describe('API keys issued with the CLI', () => {
  test('scoped keys work at once, uses are noted, and a revoked key is refused by the next request', async () => {
    const env = { AGENTHOST_STORE: `sqlite://${join(dir, 'keys.sqlite')}` };
    const reader = create(env, '--account', 'acme', '--name', 'dashboard', '--scopes', 'agents:read,agents:run');
    const admin = create(env, '--account', 'acme');
    const server = await startServer(env);
    expect(server.stdout()).toContain('  keys: 0 configured, 2 issued');
    expect(server.stdout()).not.toContain('development API key');

    const made = await api(server.url, admin.key, 'POST', '/agents', { name: 'A', instruction: 'I', model: 'echo' });
    expect(made.status).toBe(200);
    expect(
      await api(server.url, reader.key, 'POST', '/agents', { name: 'B', instruction: 'I', model: 'echo' }),
    ).toStrictEqual({
      status: 403,
      body: { success: false, error: 'This API key lacks the agents:write scope', code: 'forbidden', status: 403 },
    });
    expect(
      (await api(server.url, reader.key, 'POST', `/agents/${made.body.data.agent_id}/run`, { input: 'hi' })).status,
    ).toBe(200);

    const listed = JSON.parse(cli(env, 'keys', 'list', '--json').stdout) as {
      key_id: string;
      prefix: string;
      account_id: string;
      last_used_at: string | null;
    }[];
    expect(listed.map((k) => [k.key_id, k.prefix, k.account_id, typeof k.last_used_at])).toStrictEqual([
      [reader.key_id, reader.prefix, 'acme', 'string'],
      [admin.key_id, admin.prefix, 'acme', 'string'],
    ]);
    expect(cli(env, 'keys', 'list').stdout).toMatch(
      new RegExp(`${reader.key_id}\\s+${reader.prefix}…\\s+acme\\s+dashboard\\s+agents:read,agents:run`),
    );

    expect(cli(env, 'keys', 'revoke', reader.key_id).status).toBe(0);
    expect((await api(server.url, reader.key, 'GET', '/agents')).status).toBe(401);
    expect((await api(server.url, admin.key, 'GET', '/agents')).status).toBe(200);
    expect(cli(env, 'keys', 'revoke', 'key_nope')).toMatchObject({
      status: 1,
      stderr: 'agenthost: API key not found\n',
    });
  }, 60_000);

  test('a key revoked on one server is refused by every server sharing the store', async () => {
    const env = { AGENTHOST_STORE: REDIS_URL, AGENTHOST_STORE_NAMESPACE: namespace };
    const { key, key_id } = create(env, '--account', 'acme');
    const servers = await Promise.all([startServer(env), startServer(env)]);
    for (const s of servers) expect((await api(s.url, key, 'GET', '/agents')).status).toBe(200);
    cli(env, 'keys', 'revoke', key_id);
    for (const s of servers) expect((await api(s.url, key, 'GET', '/agents')).status).toBe(401);
  }, 60_000);
});

/** What a dump must not hold: the key, and its bare SHA-256 in either encoding. */
const secretish = (key: string) => [
  key,
  createHash('sha256').update(key).digest('hex'),
  createHash('sha256').update(key).digest('base64url'),
];

describe('storage dumps hold no raw key, nor a bare digest of it, after keys are made and used', () => {
  async function makeAndUse(env: Record<string, string>): Promise<string> {
    const { key } = create(env, '--account', 'dump');
    const server = await startServer(env);
    const made = await api(server.url, key, 'POST', '/agents', { name: 'D', instruction: 'I', model: 'echo' });
    await api(server.url, key, 'POST', `/agents/${made.body.data.agent_id}/run`, { input: 'hello' });
    server.child.kill('SIGTERM');
    await server.exited;
    return key;
  }

  test('SQLite', async () => {
    const file = join(dir, 'dump.sqlite');
    const key = await makeAndUse({ AGENTHOST_STORE: `sqlite://${file}` });
    const files = (await readdir(dir)).filter((f) => f.startsWith('dump.sqlite'));
    const bytes = Buffer.concat(await Promise.all(files.map((f) => readFile(join(dir, f)))));
    expect(bytes.length).toBeGreaterThan(0);
    expect(secretish(key).filter((s) => bytes.includes(s))).toStrictEqual([]);
    expect(bytes.includes(key.slice(0, 9))).toBe(true);
  }, 60_000);

  test('Redis', async () => {
    const ns = `${namespace}-dump`;
    const key = await makeAndUse({ AGENTHOST_STORE: REDIS_URL, AGENTHOST_STORE_NAMESPACE: ns });
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    let dump = '';
    for await (const keys of client.scanIterator({ MATCH: `${ns}*`, COUNT: 1000 }))
      for (const k of keys) dump += `${k}=${(await client.get(k)) ?? ''}\n`;
    client.destroy();
    await clearRedis(ns);
    expect(dump).toContain('"prefix"');
    expect(secretish(key).filter((s) => dump.includes(s))).toStrictEqual([]);
  }, 60_000);

  test('Postgres', async () => {
    const ns = `${namespace}-dump`;
    const key = await makeAndUse({ AGENTHOST_STORE: DATABASE_URL, AGENTHOST_STORE_NAMESPACE: ns });
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    const { rows } = await client.query<{ key: string; value: string }>(
      'SELECT key, value FROM agenthost_kv WHERE key LIKE $1',
      [`${ns}:%`],
    );
    await client.end();
    await clearPostgres(ns);
    const dump = rows.map((r) => `${r.key}=${r.value}`).join('\n');
    expect(dump).toContain('"prefix"');
    expect(secretish(key).filter((s) => dump.includes(s))).toStrictEqual([]);
  }, 60_000);
});
