import assert from 'node:assert/strict';
import type { AgentRecord, PendingTurn, SessionMessage, SessionRef } from '@agenthost/core';
import { agent, type ContractCases, unique } from './fixtures.js';

const newRef = (): SessionRef => ({ accountId: unique('acct'), agentId: unique('agt'), sessionId: unique('ses') });

/** Nested JSON of every kind, with text a serializer may treat specially (a leading ':', quotes, unicode). */
const nested = () => ({
  query: 'weather in Zürich 🌦',
  options: { units: ['metric', 'si'], depth: 3, exact: true, none: null, ratio: 0.25 },
  list: [1, 'two', { three: [3, { deep: ':base64:AAAA' }] }, [], {}],
  colon: ':leading colon',
  quotes: 'say "hi" \\ \n new line',
  empty: '',
});

/** An assistant's turn with a part of every kind, in the order they happened. */
function toolTurn(at = '2026-01-01T00:00:01.000Z'): SessionMessage[] {
  return [
    {
      role: 'user',
      content: 'What is in this picture, and the weather?',
      parts: [
        { type: 'text', text: 'What is in this picture, and the weather?' },
        { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'image', media_type: 'image/jpeg', url: 'https://example.com/a.jpg' },
        { type: 'file', media_type: 'application/pdf', filename: 'report «1».pdf', data: 'JVBERi0=' },
      ],
      created_at: '2026-01-01T00:00:00.000Z',
    },
    {
      role: 'assistant',
      content: 'A cat; it is sunny. 日本語',
      parts: [
        { type: 'tool-call', tool_call_id: 'call_1', tool_name: 'weather', input: nested() },
        { type: 'tool-approval-request', approval_id: 'appr_1', tool_call_id: 'call_1' },
        { type: 'tool-approval-response', approval_id: 'appr_1', approved: true, reason: 'fine 👍' },
        { type: 'tool-result', tool_call_id: 'call_1', tool_name: 'weather', output: { ...nested(), temp: -3.5 } },
        { type: 'tool-call', tool_call_id: 'call_2', tool_name: 'search', input: {} },
        { type: 'tool-result', tool_call_id: 'call_2', tool_name: 'search', output: 'boom', is_error: true },
        { type: 'tool-call', tool_call_id: 'call_3', tool_name: 'send', input: { to: 'x' } },
        { type: 'tool-approval-request', approval_id: 'appr_3', tool_call_id: 'call_3' },
        { type: 'tool-approval-response', approval_id: 'appr_3', approved: false },
        { type: 'tool-result', tool_call_id: 'call_3', tool_name: 'send', output: 'denied', is_error: true },
        { type: 'text', text: 'A cat; it is sunny. 日本語' },
      ],
      created_at: at,
    },
  ];
}

/** A turn that waits for the approval of one tool call. */
function pendingTurn(at = '2026-01-01T00:00:02.000Z'): PendingTurn {
  return {
    user: { role: 'user', content: 'Send it 🚀', created_at: at },
    parts: [
      { type: 'text', text: 'Sending.' },
      { type: 'tool-call', tool_call_id: 'call_9', tool_name: 'send', input: nested() },
      { type: 'tool-approval-request', approval_id: 'appr_9', tool_call_id: 'call_9' },
    ],
    approvals: [{ approval_id: 'appr_9', tool_call_id: 'call_9', tool_name: 'send', input: nested() }],
    agent_version: 3,
    model: 'openai/gpt-4o',
    tokens: { prompt: 12, completion: 3, total: 15 },
    created_at: at,
  };
}

const plainTurn = (i: number): SessionMessage[] => [
  { role: 'user', content: `question ${i}`, created_at: '2026-01-01T00:00:00.000Z' },
  { role: 'assistant', content: `answer ${i}`, created_at: '2026-01-01T00:00:01.000Z' },
];

/** Cases on the typed parts of messages: they read back exactly as written. */
export function messagePartCases(): ContractCases {
  return {
    'message parts read back deep-equal: every kind, unicode, nested JSON tool input and output': async (store) => {
      const ref = newRef();
      await store.appendMessages(ref, plainTurn(1));
      await store.appendMessages(ref, toolTurn());
      assert.deepStrictEqual(await store.readMessages(ref), [...plainTurn(1), ...toolTurn()]);
      assert.deepStrictEqual(await store.readMessages(ref, { last: 2 }), toolTurn());
      assert.deepStrictEqual(await store.readMessages(ref, { offset: 3, limit: 1 }), [toolTurn()[1]]);
    },

    'message parts are copies: changing one changes nothing stored': async (store) => {
      const ref = newRef();
      const written = toolTurn();
      await store.appendMessages(ref, written);
      (written[1]!.parts![0] as { input: ReturnType<typeof nested> }).input.options.units.push('changed');
      const read = await store.readMessages(ref);
      (read[1]!.parts![3] as { output: { temp: number } }).output.temp = 99;
      assert.deepStrictEqual(await store.readMessages(ref), toolTurn());
    },
  };
}

/** Cases on a session's pending turn: set, read, cleared with the turn's messages in one write. */
export function pendingTurnCases(): ContractCases {
  return { ...pendingOnlySessionCases(), ...pendingTurnAppendCases(), ...pendingTurnScopeCases() };
}

/** Cases on a session that has a pending turn and no messages. */
function pendingOnlySessionCases(): ContractCases {
  return {
    'a pending turn alone makes a session with no messages; it reads back deep-equal': async (store) => {
      const ref = newRef();
      assert.equal(await store.getPendingTurn(ref), undefined);
      await store.appendMessages(ref, [], pendingTurn());
      assert.deepStrictEqual(await store.getPendingTurn(ref), pendingTurn());
      assert.deepStrictEqual(await store.getSession(ref), {
        session_id: ref.sessionId,
        created_at: '2026-01-01T00:00:02.000Z',
        updated_at: '2026-01-01T00:00:02.000Z',
        message_count: 0,
      });
      assert.deepStrictEqual(await store.readMessages(ref), []);
      assert.deepStrictEqual(
        (await store.listSessions(ref.accountId, ref.agentId, { limit: 10 })).sessions.map((s) => s.session_id),
        [ref.sessionId],
      );
    },
  };
}

/** Cases on appends that set, keep, replace and clear a pending turn. */
function pendingTurnAppendCases(): ContractCases {
  return {
    'the finished turn and the pending turn clear in one append; appends without pending keep it': async (store) => {
      const ref = newRef();
      await store.appendMessages(ref, plainTurn(1));
      await store.appendMessages(ref, [], pendingTurn());
      assert.deepStrictEqual(await store.getSession(ref), {
        session_id: ref.sessionId,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:01.000Z',
        message_count: 2,
      });
      // An append that names no pending turn leaves it as it is; one that names another replaces it.
      await store.appendMessages(ref, plainTurn(2));
      assert.deepStrictEqual(await store.getPendingTurn(ref), pendingTurn());
      const answered: PendingTurn = {
        ...pendingTurn(),
        parts: [...pendingTurn().parts, { type: 'tool-approval-response', approval_id: 'appr_9', approved: true }],
        approvals: [],
      };
      await store.appendMessages(ref, [], answered);
      assert.deepStrictEqual(await store.getPendingTurn(ref), answered);
      await store.appendMessages(ref, toolTurn('2026-01-01T00:00:05.000Z'), null);
      assert.equal(await store.getPendingTurn(ref), undefined);
      assert.deepStrictEqual(await store.readMessages(ref), [
        ...plainTurn(1),
        ...plainTurn(2),
        ...toolTurn('2026-01-01T00:00:05.000Z'),
      ]);
      assert.equal((await store.getSession(ref))?.message_count, 6);
      // Clearing what is not there changes nothing, and makes no session.
      await store.appendMessages(ref, [], null);
      const none = newRef();
      await store.appendMessages(none, [], null);
      assert.deepStrictEqual([await store.getSession(none), await store.getPendingTurn(none)], [undefined, undefined]);
    },
  };
}

/** Cases on whose a pending turn is, how long it lives, and concurrent changes of it. */
function pendingTurnScopeCases(): ContractCases {
  return {
    'a pending turn belongs to its (account, agent, session), and is a copy': async (store) => {
      const ref = newRef();
      const written = pendingTurn();
      await store.appendMessages(ref, [], written);
      written.approvals.length = 0;
      (written.parts[1] as { input: ReturnType<typeof nested> }).input.list.push('changed');
      const read = await store.getPendingTurn(ref);
      read!.parts.length = 0;
      assert.deepStrictEqual(await store.getPendingTurn(ref), pendingTurn());
      for (const other of [
        { ...ref, accountId: unique('acct') },
        { ...ref, agentId: unique('agt') },
        { ...ref, sessionId: unique('ses') },
      ])
        assert.equal(await store.getPendingTurn(other), undefined);
    },

    'deleting a session or its agent deletes its pending turn': async (store) => {
      const accountId = unique('acct');
      const record: AgentRecord = agent(unique('agt'));
      await store.createAgent(accountId, record);
      const ref: SessionRef = { accountId, agentId: record.agent_id, sessionId: 'waiting' };
      await store.appendMessages(ref, [], pendingTurn());
      assert.equal(await store.deleteSession(ref), true);
      assert.deepStrictEqual([await store.getPendingTurn(ref), await store.getSession(ref)], [undefined, undefined]);
      // A session started anew under the same id has no pending turn.
      await store.appendMessages(ref, plainTurn(1));
      assert.equal(await store.getPendingTurn(ref), undefined);
      await store.appendMessages(ref, [], pendingTurn());
      assert.equal(await store.deleteAgent(accountId, record.agent_id), true);
      assert.deepStrictEqual([await store.getPendingTurn(ref), await store.getSession(ref)], [undefined, undefined]);
    },

    'concurrent appends that set and clear a pending turn lose no message': async (store) => {
      const ref = newRef();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 ? store.appendMessages(ref, plainTurn(i), null) : store.appendMessages(ref, [], pendingTurn()),
        ),
      );
      const history = await store.readMessages(ref);
      assert.equal(history.length, 20);
      assert.equal((await store.getSession(ref))?.message_count, 20);
      const pending = await store.getPendingTurn(ref);
      if (pending !== undefined) assert.deepStrictEqual(pending, pendingTurn());
    },
  };
}
