import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { afterAll, describe, expect, test } from 'vitest';
import { loadNodeSqlite, NodeSqliteAdapter } from './node-sqlite-adapter.js';

const dir = await mkdtemp(join(tmpdir(), 'agenthost-node-sqlite-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const sqlite = loadNodeSqlite();

describe('NodeSqliteAdapter', () => {
  test('a file written in the layout of @keyv/sqlite (no expires column) is read, and gains the column', async () => {
    const filename = join(dir, 'old.sqlite');
    const old = new sqlite.DatabaseSync(filename);
    old.exec('CREATE TABLE agenthost_kv(key VARCHAR(255) PRIMARY KEY, value TEXT )');
    old
      .prepare('INSERT INTO agenthost_kv (key, value) VALUES (?, ?)')
      .run('agenthost:agent:1', JSON.stringify({ value: { name: 'kept' }, expires: null }));
    // A value whose time was up before the upgrade: it is purged like any other.
    old
      .prepare('INSERT INTO agenthost_kv (key, value) VALUES (?, ?)')
      .run('agenthost:idem:1', JSON.stringify({ value: { n: 1 }, expires: Date.now() - 1_000 }));
    old.close();
    const adapter = new NodeSqliteAdapter(sqlite, { filename, table: 'agenthost_kv' });
    const keyv = new Keyv({ store: adapter, namespace: 'agenthost', throwOnErrors: true });
    expect(await keyv.get('agent:1')).toStrictEqual({ name: 'kept' });
    expect([await adapter.has('agenthost:idem:1'), adapter.purgeExpired()]).toStrictEqual([false, 0]);
    await keyv.set('agent:2', { name: 'new' });
    expect(await keyv.get('agent:2')).toStrictEqual({ name: 'new' });
    await keyv.disconnect();
    const columns = new sqlite.DatabaseSync(filename)
      .prepare('PRAGMA table_info(agenthost_kv)')
      .all()
      .map((c) => (c as { name: string }).name);
    expect(columns).toStrictEqual(['key', 'value', 'expires']);
  });

  test('values expire after their time, and expired rows are purged', async () => {
    const adapter = new NodeSqliteAdapter(sqlite, { filename: join(dir, 'ttl.sqlite') });
    const keyv = new Keyv({ store: adapter, namespace: 'n', throwOnErrors: true });
    await keyv.set('short', 1, 30);
    await keyv.set('long', 2);
    expect([await keyv.get('short'), await keyv.get('long')]).toStrictEqual([1, 2]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect([await keyv.get('short'), await keyv.get('long')]).toStrictEqual([undefined, 2]);
    expect(adapter.purgeExpired()).toBe(1);
    await keyv.disconnect();
  });

  test('many at once, deletion, and clearing only its namespace', async () => {
    const filename = join(dir, 'many.sqlite');
    const a = new Keyv({ store: new NodeSqliteAdapter(sqlite, { filename }), namespace: 'a', throwOnErrors: true });
    const b = new Keyv({ store: new NodeSqliteAdapter(sqlite, { filename }), namespace: 'b_', throwOnErrors: true });
    await a.setMany([
      { key: 'x', value: 1 },
      { key: 'y', value: 2 },
    ]);
    await b.set('x', 3);
    expect(await a.getMany(['x', 'y', 'z'])).toStrictEqual([1, 2, undefined]);
    expect([await a.delete('x'), await a.delete('x')]).toStrictEqual([true, false]);
    await a.clear();
    expect([await a.get('y'), await b.get('x')]).toStrictEqual([undefined, 3]);
    await Promise.all([a.disconnect(), b.disconnect()]);
  });

  test('iterations of a namespace may overlap', async () => {
    const keyv = new Keyv({
      store: new NodeSqliteAdapter(sqlite, { filename: join(dir, 'iter.sqlite') }),
      namespace: 'it',
      throwOnErrors: true,
    });
    await keyv.setMany([1, 2, 3].map((n) => ({ key: `k${n}`, value: n })));
    const a = keyv.iterator!('it');
    const b = keyv.iterator!('it');
    const first = await a.next();
    const all: unknown[] = [];
    for await (const [, value] of b) all.push(value);
    for await (const [, value] of a) all.push(value);
    expect([first.value, all]).toStrictEqual([
      ['k1', 1],
      [1, 2, 3, 2, 3],
    ]);
    await keyv.disconnect();
  });

  test('refuses a table name it would have to quote', () => {
    expect(() => new NodeSqliteAdapter(sqlite, { filename: ':memory:', table: 'x; DROP TABLE y' })).toThrow(
      '"x; DROP TABLE y" is not a table name',
    );
  });
});
