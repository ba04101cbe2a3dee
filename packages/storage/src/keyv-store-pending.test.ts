import { AgentHostError, type PendingTurn, type SessionMessage } from '@agenthost/core';
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { KeyvStore } from './keyv-store.js';
import { agentRecord } from './test-services.js';

/** A Map store that records every key read, as Keyv's `get` and `getMany` reach it. */
class ReadLog<K, V> extends Map<K, V> {
  reads: K[] = [];
  override get(key: K): V | undefined {
    this.reads.push(key);
    return super.get(key);
  }
}

/** A store over a logged Map; `fail` makes the writes (`set` or `delete`) of keys matching it throw. */
function loggedStore() {
  const map = new ReadLog<string, unknown>();
  const keyv = new Keyv({ store: map, throwOnErrors: true });
  const fail: { set?: RegExp; delete?: RegExp } = {};
  for (const method of ['set', 'delete'] as const) {
    const original = keyv[method].bind(keyv) as (key: string, ...rest: unknown[]) => Promise<unknown>;
    Object.assign(keyv, {
      [method]: async (key: string, ...rest: unknown[]) => {
        if (fail[method]?.test(key)) throw new Error('connection lost');
        return original(key, ...rest);
      },
    });
  }
  /** The session's keys as stored (the digest shown as H), in the order written. */
  const sessionKeys = () =>
    [...map.keys()].filter((k) => k.startsWith('keyv:session:')).map((k) => k.replace(/[A-Za-z0-9_-]{43}/, 'H'));
  /** The one meta record's key, without Keyv's namespace. */
  const metaKey = () => [...map.keys()].find((k) => k.endsWith(':meta'))!.slice('keyv:'.length);
  return { map, keyv, fail, store: new KeyvStore(keyv), sessionKeys, metaKey };
}

const ref = { accountId: 'a', agentId: 'b', sessionId: 'c' };
const at = '2026-01-01T00:00:00.000Z';

/** A pending turn with an image of `size` bytes of base64 in its user message. */
function pendingTurn(approvalId: string, size = 16): PendingTurn {
  return {
    user: {
      role: 'user',
      content: 'send it',
      parts: [{ type: 'image', media_type: 'image/png', data: 'A'.repeat(size) }],
      created_at: at,
    },
    parts: [{ type: 'tool-call', tool_call_id: 'c1', tool_name: 'send', input: { to: 'x' } }],
    approvals: [{ approval_id: approvalId, tool_call_id: 'c1', tool_name: 'send', input: { to: 'x' } }],
    agent_version: 1,
    model: 'm',
    tokens: { prompt: 1, completion: 1, total: 2 },
    created_at: at,
  };
}

const turn = (i: number): SessionMessage[] => [
  { role: 'user', content: `q${i}`, created_at: at },
  { role: 'assistant', content: `a${i}`, created_at: at },
];

describe('KeyvStore: the pending turn under a key of its own', () => {
  test('the meta keeps only its seq; listing and reading sessions never read the turn', async () => {
    const { map, store, keyv, sessionKeys, metaKey } = loggedStore();
    await store.appendMessages(ref, turn(1));
    await store.appendMessages(ref, [], pendingTurn('a1', 1024 * 1024));
    expect(sessionKeys()).toStrictEqual([
      'keyv:session:H:0',
      'keyv:session:H:1',
      'keyv:session:H:meta',
      'keyv:session:H:pending:1',
    ]);
    expect(await keyv.get(metaKey())).toStrictEqual({
      session_id: 'c',
      created_at: at,
      updated_at: at,
      n: 2,
      pos: 0,
      pending_seq: 1,
      pending_last: 1,
    });
    map.reads = [];
    const info = { session_id: 'c', created_at: at, updated_at: at, message_count: 2 };
    expect(await store.listSessions('a', 'b', { limit: 100 })).toStrictEqual({ sessions: [info], next: null });
    expect(await store.getSession(ref)).toStrictEqual(info);
    expect(await store.readMessages(ref)).toStrictEqual(turn(1));
    expect(map.reads.filter((k) => k.includes(':pending:'))).toStrictEqual([]);
    expect(await store.getPendingTurn(ref)).toStrictEqual(pendingTurn('a1', 1024 * 1024));
    expect(map.reads.filter((k) => k.includes(':pending:')).length).toBe(1);
  });

  test('a failed meta write leaves the previous pending turn visible, and the next write goes on', async () => {
    const { store, fail, sessionKeys } = loggedStore();
    await store.appendMessages(ref, [], pendingTurn('a1'));
    fail.set = /:meta$/;
    for (const change of [pendingTurn('a2'), null]) {
      const error = await store.appendMessages(ref, turn(1), change).catch((e: unknown) => e);
      expect(AgentHostError.isInstance(error) && error.code).toBe('storage_unavailable');
      expect([await store.getPendingTurn(ref), await store.readMessages(ref)]).toStrictEqual([pendingTurn('a1'), []]);
    }
    delete fail.set;
    await store.appendMessages(ref, [], pendingTurn('a2'));
    expect(await store.getPendingTurn(ref)).toStrictEqual(pendingTurn('a2'));
    // The turn it replaced is gone; the new one took the place the failed write had used.
    expect(sessionKeys()).toStrictEqual([
      'keyv:session:H:meta',
      'keyv:session:H:pending:2',
      'keyv:session:H:0',
      'keyv:session:H:1',
    ]);
    await store.appendMessages(ref, turn(1), null);
    expect([await store.getPendingTurn(ref), await store.readMessages(ref)]).toStrictEqual([undefined, turn(1)]);
    expect(sessionKeys()).toStrictEqual(['keyv:session:H:meta', 'keyv:session:H:0', 'keyv:session:H:1']);
  });

  test('a turn left by a failed removal is never read; deleting the session or its agent removes it', async () => {
    const { store, fail, sessionKeys } = loggedStore();
    await store.createAgent('a', agentRecord('b'));
    for (const remove of [() => store.deleteSession(ref), () => store.deleteAgent('a', 'b')]) {
      await store.appendMessages(ref, [], pendingTurn('a1'));
      fail.delete = /:pending:/;
      await store.appendMessages(ref, turn(1), null);
      expect([await store.getPendingTurn(ref), (await store.getSession(ref))?.message_count]).toStrictEqual([
        undefined,
        2,
      ]);
      await store.appendMessages(ref, [], pendingTurn('a2'));
      expect(await store.getPendingTurn(ref)).toStrictEqual(pendingTurn('a2'));
      expect(sessionKeys().filter((k) => k.includes(':pending:'))).toStrictEqual([
        'keyv:session:H:pending:1',
        'keyv:session:H:pending:2',
      ]);
      delete fail.delete;
      expect(await remove()).toBe(true);
      expect(sessionKeys()).toStrictEqual([]);
    }
  });

  test('a turn replaced between the reads of getPendingTurn is read again; a missing one is an error', async () => {
    const { map, store, keyv } = loggedStore();
    await store.appendMessages(ref, [], pendingTurn('a1'));
    const get = keyv.get.bind(keyv);
    let replaced = false;
    keyv.get = (async (key: string) => {
      if (key.endsWith(':pending:1') && !replaced) {
        replaced = true;
        await store.appendMessages(ref, [], pendingTurn('a2'));
      }
      return get(key);
    }) as typeof keyv.get;
    expect(await store.getPendingTurn(ref)).toStrictEqual(pendingTurn('a2'));
    expect(replaced).toBe(true);
    map.delete([...map.keys()].find((k) => k.endsWith(':pending:2'))!);
    const error = await store.getPendingTurn(ref).catch((e: unknown) => e);
    expect(AgentHostError.isInstance(error) && [error.code, error.message]).toStrictEqual([
      'storage_unavailable',
      "A session's pending turn could not be read",
    ]);
  });

  test('a meta of the earlier layout, with the turn inline, reads as before and moves out on its next change', async () => {
    const { store, keyv, metaKey } = loggedStore();
    await store.appendMessages(ref, turn(1));
    const meta = { session_id: 'c', created_at: at, updated_at: at, n: 2, pos: 0 };
    await keyv.set(metaKey(), { ...meta, pending: pendingTurn('a1') });
    const info = { session_id: 'c', created_at: at, updated_at: at, message_count: 2 };
    expect([await store.getPendingTurn(ref), await store.getSession(ref)]).toStrictEqual([pendingTurn('a1'), info]);
    await store.appendMessages(ref, turn(2));
    expect(await store.getPendingTurn(ref)).toStrictEqual(pendingTurn('a1'));
    await store.appendMessages(ref, [], pendingTurn('a2'));
    expect(await keyv.get(metaKey())).toStrictEqual({ ...meta, n: 4, pending_seq: 1, pending_last: 1 });
    expect(await store.getPendingTurn(ref)).toStrictEqual(pendingTurn('a2'));
    // Clearing an inline turn drops it from the meta.
    await keyv.set(metaKey(), { ...meta, n: 4, pending: pendingTurn('a1') });
    await store.appendMessages(ref, [], null);
    expect(await keyv.get(metaKey())).toStrictEqual({ ...meta, n: 4 });
    expect(await store.getPendingTurn(ref)).toBe(undefined);
  });
});
