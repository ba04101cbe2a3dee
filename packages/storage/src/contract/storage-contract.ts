import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type {
  AgentStore,
  ApiKeyRecord,
  ApiKeyStore,
  HostSecretStore,
  IdempotencyStore,
  SessionMessage,
  SessionRef,
} from '@agenthost/core';
import { agentVersionCases } from './agent-version-cases.js';
import { agent, type ContractCases, unique } from './fixtures.js';
import { messagePartCases, pendingTurnCases } from './message-part-cases.js';

/** The parts of a test framework the suite needs; vitest, jest and `node:test` all provide them. */
export interface TestApi {
  describe(name: string, fn: () => void): void;
  test(name: string, fn: () => Promise<void>, timeout?: number): void;
}

/** Options of {@link storageContractTests}. */
export interface StorageContractOptions {
  /** Cases this backend opts out of, each with the reason (shown in the test name). */
  skip?: Record<string, string>;
  /**
   * True when two stores made with the same `scope` share their data and their locks, as two
   * servers on one Redis or Postgres do. Adds cases that spread concurrent writes over both.
   */
  sharesData?: boolean;
  /** Timeout per case in ms (default 30 000). */
  timeout?: number;
}

/** A key record under a bare SHA-256 (hex), as keys were stored before keyed hashes. */
function keyRecord(i: number): ApiKeyRecord {
  return {
    key_id: unique('key'),
    account_id: `acct-${i}`,
    name: i ? null : 'ci',
    prefix: 'ah_abcdef',
    digest: createHash('sha256').update(unique('secret')).digest('hex'),
    scopes: ['agents:read', 'agents:run'],
    created_at: '2026-01-01T00:00:00.000Z',
    last_used_at: null,
    revoked_at: null,
  };
}

/** A stand-in for a keyed hash: 43 base64url characters. */
const keyedDigest = () => createHash('sha256').update(unique('keyed')).digest('base64url');

/** The store's optional ports, or `undefined` when it lacks them. */
const keysOf = (store: AgentStore) =>
  (store as Partial<ApiKeyStore>).createKey ? (store as AgentStore & ApiKeyStore) : undefined;
const secretsOf = (store: AgentStore) =>
  (store as Partial<HostSecretStore>).createHostSecret ? (store as AgentStore & HostSecretStore) : undefined;

function turn(i: number): SessionMessage[] {
  return [
    { role: 'user', content: `question ${i}`, created_at: '2026-01-01T00:00:00.000Z' },
    { role: 'assistant', content: `answer ${i}`, created_at: '2026-01-01T00:00:01.000Z' },
  ];
}

/** Cases on storing, reading and listing agent records. */
function agentRecordCases(): ContractCases {
  return {
    'an agent reads back as it was stored': async (store) => {
      const account = unique('acct');
      const record = agent(unique('agt'), 'Support ✨ «agent» 日本語 🚀');
      await store.createAgent(account, record);
      assert.deepStrictEqual(await store.getAgent(account, record.agent_id), record);
    },

    'an unknown agent is undefined, and so is an agent of another account': async (store) => {
      const [a, b] = [unique('acct'), unique('acct')];
      const record = agent(unique('agt'));
      await store.createAgent(a, record);
      assert.equal(await store.getAgent(a, unique('missing')), undefined);
      assert.equal(await store.getAgent(b, record.agent_id), undefined);
    },

    'records are copies: changing one changes nothing stored': async (store) => {
      const account = unique('acct');
      const record = agent(unique('agt'));
      const expected = structuredClone(record);
      await store.createAgent(account, record);
      record.name = 'changed after create';
      record.config.instruction = 'changed after create';
      const got = await store.getAgent(account, record.agent_id);
      assert.ok(got);
      got.config.model = 'changed after get';
      (await store.listAgents(account))[0]!.name = 'changed after list';
      assert.deepStrictEqual(await store.getAgent(account, record.agent_id), expected);
    },

    'an account lists only its own agents, oldest first': async (store) => {
      const [a, b] = [unique('acct'), unique('acct')];
      const mine = [
        agent(unique('agt'), 'first', '2026-01-01T00:00:00.000Z'),
        agent(unique('agt'), 'second', '2026-01-01T00:00:01.000Z'),
        agent(unique('agt'), 'third', '2026-01-01T00:00:02.000Z'),
      ];
      for (const r of mine) {
        await store.createAgent(a, r);
        await store.createAgent(b, agent(unique('agt'), 'theirs'));
      }
      assert.deepStrictEqual(await store.listAgents(a), mine);
      assert.equal((await store.listAgents(b)).length, 3);
      assert.deepStrictEqual(await store.listAgents(unique('acct')), []);
    },

    'ids that contain separators do not collide across accounts': async (store) => {
      const base = unique('acct');
      await store.createAgent(`${base}:x`, agent('y'));
      assert.equal(await store.getAgent(base, 'x:y'), undefined);
      assert.deepStrictEqual(await store.listAgents(base), []);
      const s1: SessionRef = { accountId: `${base}:a`, agentId: 'b', sessionId: 'c' };
      const s2: SessionRef = { accountId: base, agentId: 'a:b', sessionId: 'c' };
      await store.appendMessages(s1, turn(1));
      assert.deepStrictEqual(await store.readMessages(s2), []);
    },
  };
}

/** Cases on the messages of one session: order, pages, scope, content and metadata. */
function sessionMessageCases(): ContractCases {
  return {
    'messages read back in order; an unknown session is empty': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') };
      assert.deepStrictEqual(await store.readMessages(ref), []);
      await store.appendMessages(ref, turn(1));
      await store.appendMessages(ref, turn(2));
      assert.deepStrictEqual(await store.readMessages(ref), [...turn(1), ...turn(2)]);
    },

    'messages are copies: changing one written or read changes nothing stored': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') };
      const written = turn(1);
      await store.appendMessages(ref, written);
      written[0]!.content = 'changed after append';
      const read = await store.readMessages(ref);
      read[1]!.content = 'changed after read';
      read.pop();
      assert.deepStrictEqual(await store.readMessages(ref), turn(1));
    },

    'last N reads only the newest N messages, oldest first': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') };
      for (let i = 0; i < 30; i++) await store.appendMessages(ref, turn(i));
      assert.deepStrictEqual(await store.readMessages(ref, { last: 4 }), [...turn(28), ...turn(29)]);
      assert.equal((await store.readMessages(ref, { last: 1000 })).length, 60);
      assert.deepStrictEqual(await store.readMessages(ref, { last: 0 }), []);
    },

    'sessions are scoped to (account, agent)': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: 'shared-id' };
      await store.appendMessages(ref, turn(1));
      assert.deepStrictEqual(await store.readMessages({ ...ref, agentId: unique('agt') }), []);
      assert.deepStrictEqual(await store.readMessages({ ...ref, accountId: unique('acct') }), []);
      assert.deepStrictEqual(await store.readMessages(ref), turn(1));
    },

    'text survives the round trip: unicode, quotes, newlines, 256 KiB': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') };
      const texts = [
        'emoji 👩‍💻🚀, RTL שלום, CJK 你好',
        'quotes " \' ` and \\ backslash\nnew\r\nlines\ttabs',
        'x'.repeat(256 * 1024),
      ];
      const messages = texts.map(
        (content, i): SessionMessage => ({
          role: i % 2 ? 'assistant' : 'user',
          content,
          created_at: '2026-01-01T00:00:00.000Z',
        }),
      );
      await store.appendMessages(ref, messages);
      assert.deepStrictEqual(await store.readMessages(ref), messages);
    },

    'a session reports its timestamps and count; an unknown one is undefined': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: 'info' };
      assert.equal(await store.getSession(ref), undefined);
      await store.appendMessages(ref, turn(1));
      await store.appendMessages(ref, [{ role: 'user', content: 'later', created_at: '2026-01-02T00:00:00.000Z' }]);
      assert.deepStrictEqual(await store.getSession(ref), {
        session_id: 'info',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-02T00:00:00.000Z',
        message_count: 3,
      });
    },

    'messages read in pages by offset and limit': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') };
      for (let i = 0; i < 5; i++) await store.appendMessages(ref, turn(i));
      assert.deepStrictEqual(await store.readMessages(ref, { offset: 0, limit: 3 }), [...turn(0), turn(1)[0]!]);
      assert.deepStrictEqual(await store.readMessages(ref, { offset: 8, limit: 3 }), turn(4));
      assert.deepStrictEqual(await store.readMessages(ref, { offset: 10, limit: 3 }), []);
    },
  };
}

/** Cases on listing and deleting an agent's sessions. */
function sessionListingCases(): ContractCases {
  return {
    "an agent's sessions list newest first, in pages, and only that agent's": async (store) => {
      const [accountId, agentId] = [unique('acct'), unique('agt')];
      for (let i = 0; i < 25; i++) await store.appendMessages({ accountId, agentId, sessionId: `s${i}` }, turn(i));
      await store.appendMessages({ accountId, agentId: unique('agt'), sessionId: 'other-agent' }, turn(0));
      await store.appendMessages({ accountId: unique('acct'), agentId, sessionId: 'other-account' }, turn(0));
      await store.appendMessages({ accountId, agentId, sessionId: 's3' }, turn(99));
      const seen: string[] = [];
      let before: number | undefined;
      const sizes: number[] = [];
      for (let page = 0; page < 5; page++) {
        const result = await store.listSessions(accountId, agentId, {
          limit: 10,
          ...(before !== undefined && { before }),
        });
        sizes.push(result.sessions.length);
        seen.push(...result.sessions.map((x) => x.session_id));
        if (result.next === null) break;
        before = result.next;
      }
      assert.deepStrictEqual(sizes, [10, 10, 5]);
      assert.deepStrictEqual(
        seen,
        Array.from({ length: 25 }, (_, i) => `s${24 - i}`),
      );
      const s3 = (await store.listSessions(accountId, agentId, { limit: 100 })).sessions.find(
        (x) => x.session_id === 's3',
      );
      assert.equal(s3?.message_count, 4);
    },

    'a deleted session is gone, a second delete finds nothing, and the id can start anew': async (store) => {
      const [accountId, agentId] = [unique('acct'), unique('agt')];
      const ref: SessionRef = { accountId, agentId, sessionId: 'gone' };
      await store.appendMessages(ref, turn(1));
      await store.appendMessages({ accountId, agentId, sessionId: 'kept' }, turn(2));
      assert.equal(await store.deleteSession(ref), true);
      assert.equal(await store.deleteSession(ref), false);
      assert.equal(await store.getSession(ref), undefined);
      assert.deepStrictEqual(await store.readMessages(ref), []);
      assert.deepStrictEqual(
        (await store.listSessions(accountId, agentId, { limit: 10 })).sessions.map((x) => x.session_id),
        ['kept'],
      );
      await store.appendMessages(ref, turn(3));
      assert.deepStrictEqual(await store.readMessages(ref), turn(3));
      assert.deepStrictEqual(
        (await store.listSessions(accountId, agentId, { limit: 10 })).sessions.map((x) => [
          x.session_id,
          x.message_count,
        ]),
        [
          ['gone', 2],
          ['kept', 2],
        ],
      );
    },
  };
}

/** Cases on updating, deleting and paging agents. */
function agentLifecycleCases(): ContractCases {
  return {
    'an update replaces the record; a missing or foreign agent is not updated': async (store) => {
      const [a, b] = [unique('acct'), unique('acct')];
      const record = agent(unique('agt'));
      await store.createAgent(a, record);
      const changed = {
        ...record,
        name: 'Renamed',
        config: { ...record.config, name: 'Renamed' },
        updated_at: '2026-02-01T00:00:00.000Z',
      };
      assert.equal(await store.updateAgent(a, changed), true);
      assert.deepStrictEqual(await store.getAgent(a, record.agent_id), changed);
      assert.deepStrictEqual(await store.listAgents(a), [changed]);
      assert.equal(await store.updateAgent(b, changed), false);
      assert.equal(await store.updateAgent(a, agent(unique('missing'))), false);
      assert.equal(await store.getAgent(b, record.agent_id), undefined);
    },

    'deleting an agent removes it, its sessions and nothing else': async (store) => {
      const account = unique('acct');
      const [gone, kept] = [agent(unique('agt'), 'gone'), agent(unique('agt'), 'kept')];
      await store.createAgent(account, gone);
      await store.createAgent(account, kept);
      for (const sessionId of ['s1', 's2']) {
        await store.appendMessages({ accountId: account, agentId: gone.agent_id, sessionId }, turn(1));
        await store.appendMessages({ accountId: account, agentId: kept.agent_id, sessionId }, turn(2));
      }
      assert.equal(await store.deleteAgent(unique('acct'), gone.agent_id), false);
      assert.equal(await store.deleteAgent(account, gone.agent_id), true);
      assert.equal(await store.deleteAgent(account, gone.agent_id), false);
      assert.equal(await store.getAgent(account, gone.agent_id), undefined);
      assert.deepStrictEqual(await store.listAgents(account), [kept]);
      assert.deepStrictEqual(
        await store.readMessages({ accountId: account, agentId: gone.agent_id, sessionId: 's1' }),
        [],
      );
      assert.deepStrictEqual((await store.listSessions(account, gone.agent_id, { limit: 10 })).sessions, []);
      assert.deepStrictEqual(
        await store.readMessages({ accountId: account, agentId: kept.agent_id, sessionId: 's1' }),
        turn(2),
      );
    },

    'agents list in pages, oldest or newest first, past deleted ones': async (store) => {
      const account = unique('acct');
      const records = Array.from({ length: 12 }, (_, i) => agent(`${unique('agt')}-${i}`, `a${i}`));
      for (const r of records) await store.createAgent(account, r);
      for (const i of [3, 4, 10]) await store.deleteAgent(account, records[i]!.agent_id);
      const walk = async (order: 'asc' | 'desc') => {
        const pages: string[][] = [];
        let after: number | undefined;
        for (let guard = 0; guard < 10; guard++) {
          const page = await store.listAgentsPage(account, { limit: 4, order, ...(after !== undefined && { after }) });
          pages.push(page.agents.map((a) => a.name));
          if (page.next === null) break;
          after = page.next;
        }
        return pages;
      };
      assert.deepStrictEqual(await walk('asc'), [['a0', 'a1', 'a2', 'a5'], ['a6', 'a7', 'a8', 'a9'], ['a11']]);
      assert.deepStrictEqual(await walk('desc'), [['a11', 'a9', 'a8', 'a7'], ['a6', 'a5', 'a2', 'a1'], ['a0']]);
      assert.deepStrictEqual(await store.listAgentsPage(unique('acct'), { limit: 5, order: 'asc' }), {
        agents: [],
        next: null,
      });
    },
  };
}

/** Cases on API key records: lookup, listing, updates and moves to another digest. */
function apiKeyCases(): ContractCases {
  return {
    'API key records are found by digest and by id, listed, updated, and never shared': async (s) => {
      const keys = keysOf(s);
      if (!keys) return;
      const [a, b] = [keyRecord(0), keyRecord(1)];
      await keys.createKey(a);
      await keys.createKey(b);
      assert.deepStrictEqual(await keys.findKeyByDigest(a.digest), a);
      assert.deepStrictEqual(await keys.getKey(b.key_id), b);
      assert.equal(await keys.findKeyByDigest('0'.repeat(64)), undefined);
      assert.equal(await keys.getKey('key_missing'), undefined);
      assert.deepStrictEqual(await keys.listKeys(), [a, b]);
      const revoked = { ...a, revoked_at: '2026-01-02T00:00:00.000Z' };
      assert.equal(await keys.updateKey(revoked), true);
      assert.deepStrictEqual(await keys.findKeyByDigest(a.digest), revoked);
      assert.equal(await keys.updateKey(keyRecord(2)), false);
      // A write made from a copy read before the revocation (noting a use) never lifts it.
      assert.equal(await keys.updateKey({ ...a, last_used_at: '2026-01-03T00:00:00.000Z' }), true);
      assert.deepStrictEqual(await keys.findKeyByDigest(a.digest), {
        ...revoked,
        last_used_at: '2026-01-03T00:00:00.000Z',
      });
    },

    'a key record moves to another digest: found, listed and updated there only': async (s) => {
      const keys = keysOf(s);
      if (!keys) return;
      const [a, b] = [keyRecord(0), keyRecord(1)];
      await keys.createKey(a);
      await keys.createKey(b);
      const to = keyedDigest();
      assert.equal(await keys.moveKey(a.key_id, a.digest, to), true);
      const moved = { ...a, digest: to };
      assert.equal(await keys.findKeyByDigest(a.digest), undefined);
      assert.deepStrictEqual(await keys.findKeyByDigest(to), moved);
      assert.deepStrictEqual(await keys.getKey(a.key_id), moved);
      assert.deepStrictEqual(await keys.listKeys(), [moved, b]);
      // Nothing more to move: a repeated move, an unknown id, or a record not under `from`.
      assert.equal(await keys.moveKey(a.key_id, a.digest, keyedDigest()), false);
      assert.equal(await keys.moveKey('key_missing', a.digest, keyedDigest()), false);
      assert.equal(await keys.moveKey(b.key_id, a.digest, keyedDigest()), false);
      assert.deepStrictEqual(await keys.listKeys(), [moved, b]);
      // An update made from a copy read before the move lands on the moved record and keeps its digest.
      assert.equal(await keys.updateKey({ ...a, revoked_at: '2026-01-02T00:00:00.000Z' }), true);
      assert.deepStrictEqual(await keys.findKeyByDigest(to), { ...moved, revoked_at: '2026-01-02T00:00:00.000Z' });
      assert.equal(await keys.findKeyByDigest(a.digest), undefined);
    },

    'concurrent moves and a revocation of one key record lose nothing': async (s) => {
      const keys = keysOf(s);
      if (!keys) return;
      const a = keyRecord(0);
      await keys.createKey(a);
      const to = keyedDigest();
      const revoked = { ...a, revoked_at: '2026-01-02T00:00:00.000Z' };
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => keys.moveKey(a.key_id, a.digest, to)),
        keys.updateKey(revoked),
      ]);
      assert.deepStrictEqual(results.slice(0, 5).filter(Boolean), [true]);
      assert.equal(results[5], true);
      assert.deepStrictEqual(await keys.listKeys(), [{ ...revoked, digest: to }]);
      assert.equal(await keys.findKeyByDigest(a.digest), undefined);
    },
  };
}

/** Cases on the host secret and on idempotency records. */
function hostSecretAndIdempotencyCases(): ContractCases {
  return {
    'the host secret is absent until created; the first one created is kept': async (s) => {
      const secrets = secretsOf(s);
      if (!secrets) return;
      assert.equal(await secrets.getHostSecret(), undefined);
      const candidates = Array.from({ length: 10 }, () => unique('secret'));
      const kept = await Promise.all(candidates.map((c) => secrets.createHostSecret(c)));
      assert.equal(new Set(kept).size, 1);
      assert.ok(candidates.includes(kept[0]!));
      assert.equal(await secrets.createHostSecret(unique('later')), kept[0]);
      assert.equal(await secrets.getHostSecret(), kept[0]);
    },

    'idempotency records read back until their time is up, and can be deleted': async (s) => {
      const store = s as AgentStore & Partial<IdempotencyStore>;
      if (!store.putIdempotency) return;
      const idem = store as AgentStore & IdempotencyStore;
      const [a, b] = [unique('idem'), unique('idem')];
      const record = {
        fingerprint: 'f1',
        state: 'done' as const,
        response: { status: 200, body: { success: true, data: { x: 1 }, status: 200 } },
        created_at: '2026-01-01T00:00:00.000Z',
      };
      await idem.putIdempotency(a, record, 60_000);
      await idem.putIdempotency(b, { ...record, state: 'in_flight', response: undefined! }, 300);
      assert.deepStrictEqual(await idem.getIdempotency(a), record);
      assert.equal((await idem.getIdempotency(b))?.state, 'in_flight');
      assert.equal(await idem.getIdempotency(unique('idem')), undefined);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      assert.equal(await idem.getIdempotency(b), undefined);
      await idem.deleteIdempotency(a);
      assert.equal(await idem.getIdempotency(a), undefined);
    },
  };
}

/** Cases on concurrent writes to one store. */
function concurrencyCases(): ContractCases {
  return {
    'concurrent creates for one account all land': async (store) => {
      const account = unique('acct');
      const ids = Array.from({ length: 100 }, () => unique('agt'));
      await Promise.all(ids.map((id) => store.createAgent(account, agent(id))));
      const listed = (await store.listAgents(account)).map((a) => a.agent_id);
      assert.deepStrictEqual([...listed].sort(), [...ids].sort());
    },

    'concurrent appends to one session keep every turn whole': async (store) => {
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') };
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.appendMessages(ref, turn(i))));
      const history = await store.readMessages(ref);
      assert.equal(history.length, 100);
      const seen = new Set<number>();
      for (let j = 0; j < history.length; j += 2) {
        const i = Number(history[j]!.content.replace('question ', ''));
        assert.deepStrictEqual(history.slice(j, j + 2), turn(i), `turn at ${j} is not whole`);
        seen.add(i);
      }
      assert.equal(seen.size, 50);
    },
  };
}

/** Cases for stores that share their data: concurrent writes spread over two stores of one scope. */
function sharedDataCases(): ContractCases {
  return {
    'two stores on the same data: concurrent creates across both all land': async (store, peer) => {
      const other = await peer();
      const account = unique('acct');
      const ids = Array.from({ length: 100 }, () => unique('agt'));
      await Promise.all(ids.map((id, i) => (i % 2 ? other : store).createAgent(account, agent(id))));
      for (const s of [store, other])
        assert.deepStrictEqual((await s.listAgents(account)).map((a) => a.agent_id).sort(), [...ids].sort());
    },
    'two stores on the same data: concurrent appends across both keep every turn whole': async (store, peer) => {
      const other = await peer();
      const ref: SessionRef = { accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') };
      await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? other : store).appendMessages(ref, turn(i))));
      const history = await other.readMessages(ref);
      assert.equal(history.length, 100);
      for (let j = 0; j < history.length; j += 2) {
        const i = Number(history[j]!.content.replace('question ', ''));
        assert.deepStrictEqual(history.slice(j, j + 2), turn(i), `turn at ${j} is not whole`);
      }
    },
    'two stores on the same data: racing creations of the host secret keep one': async (store, peer) => {
      const [one, other] = [secretsOf(store), secretsOf(await peer())];
      if (!one || !other) return;
      const kept = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : one).createHostSecret(unique('secret'))),
      );
      assert.equal(new Set(kept).size, 1);
      assert.deepStrictEqual([await one.getHostSecret(), await other.getHostSecret()], [kept[0], kept[0]]);
    },
    'two stores on the same data: moves and a revocation of one key record across both lose nothing': async (
      store,
      peer,
    ) => {
      const [one, other] = [keysOf(store), keysOf(await peer())];
      if (!one || !other) return;
      const a = keyRecord(0);
      await one.createKey(a);
      const to = keyedDigest();
      const revoked = { ...a, revoked_at: '2026-01-02T00:00:00.000Z' };
      const moves = Array.from({ length: 6 }, (_, i) => (i % 2 ? other : one).moveKey(a.key_id, a.digest, to));
      const results = await Promise.all([...moves, other.updateKey(revoked)]);
      assert.deepStrictEqual(results.slice(0, 6).filter(Boolean), [true]);
      for (const keys of [one, other]) {
        assert.deepStrictEqual(await keys.listKeys(), [{ ...revoked, digest: to }]);
        assert.equal(await keys.findKeyByDigest(a.digest), undefined);
      }
    },
  };
}

/** Registers one group of cases as tests of the current describe block, each on fresh stores it closes afterwards. */
function registerCases(
  api: TestApi,
  makeStore: (scope: string) => AgentStore | Promise<AgentStore>,
  options: StorageContractOptions,
  cases: ContractCases,
): void {
  const timeout = options.timeout ?? 30_000;
  for (const [name, run] of Object.entries(cases)) {
    const reason = options.skip?.[name];
    if (reason !== undefined) {
      api.test(`${name} (skipped: ${reason})`, async () => {});
      continue;
    }
    api.test(
      name,
      async () => {
        const scope = unique('scope');
        const opened: AgentStore[] = [await makeStore(scope)];
        const peer = async () => {
          const s = await makeStore(scope);
          opened.push(s);
          return s;
        };
        try {
          await run(opened[0]!, peer);
        } finally {
          for (const s of opened) await s.close?.();
        }
      },
      timeout,
    );
  }
}

/**
 * Registers the storage contract: the same cases for every backend, including concurrent ones. A
 * backend passes when all of them pass. `makeStore(scope)` is called at least once per case; stores
 * of different scopes should share nothing (for example a key prefix per scope), and with
 * `sharesData` two stores of one scope must share data and locks. The suite closes every store.
 *
 * @example
 * import { describe, test } from 'vitest';
 * storageContractTests({ describe, test }, () => new MemoryStore());
 */
export function storageContractTests(
  api: TestApi,
  makeStore: (scope: string) => AgentStore | Promise<AgentStore>,
  options: StorageContractOptions = {},
): void {
  api.describe('agenthost storage contract', () => {
    const register = (cases: ContractCases) => registerCases(api, makeStore, options, cases);
    register(agentRecordCases());
    register(sessionMessageCases());
    register(sessionListingCases());
    register(agentLifecycleCases());
    register(agentVersionCases());
    register(apiKeyCases());
    register(hostSecretAndIdempotencyCases());
    register(concurrencyCases());
    register(messagePartCases());
    register(pendingTurnCases());
    if (options.sharesData) register(sharedDataCases());
  });
}
