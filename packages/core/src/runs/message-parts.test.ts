import type { ModelMessage } from 'ai';
import { tool } from 'ai';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { estimateTokens, fitHistory, IMAGE_TOKENS, messageTokens } from '../context-window.js';
import type { MessagePart, SessionMessage } from '../records.js';
import { staticTools } from '../tools/static-tools.js';
import { agentTools, toolsUsed } from './agent-tools.js';
import {
  assistantMessages,
  boundedAttachments,
  historyMessages,
  MAX_STORED_TOOL_OUTPUT,
  partsOf,
  responseParts,
  storedToolOutput,
  unansweredApprovals,
} from './message-parts.js';

/** What the AI SDK answers for a turn that called tools, failed one, waited for approval and was denied. */
const response: ModelMessage[] = [
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'thinking' },
      { type: 'text', text: '' },
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'send', input: { to: 'bob' } },
      { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2' },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'error-text', value: 'boom' } },
      { type: 'tool-approval-response', approvalId: 'a2', approved: false, reason: 'no' },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'send',
        output: { type: 'execution-denied', reason: 'no' },
      },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'search', input: { q: 'y' } }],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c3', toolName: 'search', output: { type: 'json', value: { hits: [1, 2] } } },
    ],
  },
  { role: 'assistant', content: 'Done.' },
];

const parts: MessagePart[] = [
  { type: 'text', text: 'Looking.' },
  { type: 'tool-call', tool_call_id: 'c1', tool_name: 'search', input: { q: 'x' } },
  { type: 'tool-call', tool_call_id: 'c2', tool_name: 'send', input: { to: 'bob' } },
  { type: 'tool-approval-request', approval_id: 'a2', tool_call_id: 'c2' },
  { type: 'tool-result', tool_call_id: 'c1', tool_name: 'search', output: 'boom', is_error: true },
  { type: 'tool-approval-response', approval_id: 'a2', approved: false, reason: 'no' },
  {
    type: 'tool-result',
    tool_call_id: 'c2',
    tool_name: 'send',
    output: 'The tool call was denied: no',
    is_error: true,
  },
  { type: 'tool-call', tool_call_id: 'c3', tool_name: 'search', input: { q: 'y' } },
  { type: 'tool-result', tool_call_id: 'c3', tool_name: 'search', output: { hits: [1, 2] } },
  { type: 'text', text: 'Done.' },
];

describe('message parts', () => {
  test('response messages become parts in order; reasoning and empty text are left out', () => {
    expect(responseParts(response)).toStrictEqual(parts);
  });

  test('parts go back as assistant and tool messages, with or without the approval parts', () => {
    const calls = (...ids: string[]) =>
      ids.map((id) => {
        const call = parts.find((p) => p.type === 'tool-call' && p.tool_call_id === id);
        return call?.type === 'tool-call'
          ? { type: 'tool-call', toolCallId: id, toolName: call.tool_name, input: call.input }
          : undefined;
      });
    const denied = {
      type: 'tool-result',
      toolCallId: 'c2',
      toolName: 'send',
      output: { type: 'error-text', value: 'The tool call was denied: no' },
    };
    const failed = {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'search',
      output: { type: 'error-text', value: 'boom' },
    };
    const third = {
      type: 'tool-result',
      toolCallId: 'c3',
      toolName: 'search',
      output: { type: 'json', value: { hits: [1, 2] } },
    };
    expect(assistantMessages(parts, { approvals: false })).toStrictEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, ...calls('c1', 'c2')] },
      { role: 'tool', content: [failed, denied] },
      { role: 'assistant', content: calls('c3') },
      { role: 'tool', content: [third] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
    expect(assistantMessages(parts.slice(0, 6), { approvals: true })).toStrictEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          ...calls('c1', 'c2'),
          { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2' },
        ],
      },
      {
        role: 'tool',
        content: [failed, { type: 'tool-approval-response', approvalId: 'a2', approved: false, reason: 'no' }],
      },
    ]);
  });

  test('history: a text-only reply is its text; a reply with tools is its messages; a user message its content', () => {
    const history: SessionMessage[] = [
      { role: 'user', content: 'hi', created_at: 'x' },
      { role: 'assistant', content: 'hello', parts: [{ type: 'text', text: 'hello' }], created_at: 'x' },
      { role: 'user', content: 'look', created_at: 'x' },
      { role: 'assistant', content: 'Done.', parts: parts.slice(7), created_at: 'x' },
    ];
    expect(historyMessages(history)).toStrictEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'look' },
      ...assistantMessages(parts.slice(7), { approvals: false }),
    ]);
    expect([partsOf(history[0]!), partsOf(history[3]!)]).toStrictEqual([
      { ...history[0], parts: [{ type: 'text', text: 'hi' }] },
      history[3],
    ]);
  });

  test('approvals without an answer are pending, with the calls they are for', () => {
    expect([unansweredApprovals(parts), unansweredApprovals(parts.slice(0, 4))]).toStrictEqual([
      [],
      [{ approval_id: 'a2', tool_call_id: 'c2', tool_name: 'send', input: { to: 'bob' } }],
    ]);
  });
});

describe('tool outputs kept in a session', () => {
  test('up to 64 KiB of JSON text as they are; past it, the start of the text and how long it was', () => {
    const fits = { rows: 'x'.repeat(MAX_STORED_TOOL_OUTPUT - 20) };
    expect(storedToolOutput(fits)).toBe(fits);
    const big = { rows: 'y'.repeat(MAX_STORED_TOOL_OUTPUT) };
    const text = JSON.stringify(big);
    expect(storedToolOutput(big)).toBe(
      `${text.slice(0, MAX_STORED_TOOL_OUTPUT)}… [cut: ${text.length} characters in all]`,
    );
    const parts = responseParts([
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'json', value: big } }],
      },
    ]);
    expect(parts).toStrictEqual([
      { type: 'tool-result', tool_call_id: 'c', tool_name: 't', output: storedToolOutput(big) },
    ]);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(storedToolOutput(circular)).toBe('[object Object]');
    expect(storedToolOutput(10n)).toBe('10');
  });
});

describe('images and files in the history', () => {
  test('the newest are sent up to one input’s bytes in all; older ones become a text part that says so', () => {
    const image = (n: number): MessagePart => ({
      type: 'image',
      media_type: 'image/png',
      data: Buffer.alloc(4 * 1024 * 1024, n).toString('base64'),
    });
    const turn = (n: number): Pick<SessionMessage, 'role' | 'content' | 'parts'>[] => [
      { role: 'user', content: `look ${n}`, parts: [{ type: 'text', text: `look ${n}` }, image(n)] },
      { role: 'assistant', content: `seen ${n}` },
    ];
    const history = [...turn(1), ...turn(2), ...turn(3)];
    const bounded = boundedAttachments(history);
    expect(
      bounded.map((m) => m.parts?.map((p) => (p.type === 'image' ? 'image' : p.type === 'text' && p.text))),
    ).toStrictEqual([
      ['look 1', '[image/png left out of the history]'],
      undefined,
      ['look 2', 'image'],
      undefined,
      ['look 3', 'image'],
      undefined,
    ]);
    // The stored messages are not changed.
    expect(history[0]?.parts?.[1]).toStrictEqual(image(1));
    expect(historyMessages(history)[0]).toStrictEqual({
      role: 'user',
      content: 'look 1\n[image/png left out of the history]',
    });
  });
});

describe('the size of a turn with tools', () => {
  test("a turn's estimate counts its tool input and output, and images by a fixed amount", () => {
    const big = { type: 'tool-result' as const, tool_call_id: 'c', tool_name: 't', output: 'x'.repeat(3000) };
    expect(
      messageTokens({
        content: 'ok',
        parts: [
          { type: 'text', text: 'ok' },
          big,
          { type: 'image', media_type: 'image/png', url: 'https://e.x/a.png' },
        ],
      }),
    ).toBe(estimateTokens('ok') + estimateTokens(JSON.stringify('x'.repeat(3000))) + IMAGE_TOKENS);
  });

  test('a turn whose tool output does not fit is left out whole, never split from its question', () => {
    const heavy: SessionMessage[] = [
      { role: 'user', content: 'q1', created_at: 'x' },
      {
        role: 'assistant',
        content: 'a1',
        parts: [{ type: 'tool-result', tool_call_id: 'c', tool_name: 't', output: 'y'.repeat(30_000) }],
        created_at: 'x',
      },
      { role: 'user', content: 'q2', created_at: 'x' },
      { role: 'assistant', content: 'a2', created_at: 'x' },
    ];
    expect(fitHistory(heavy, 1000)).toStrictEqual({ sent: heavy.slice(2), omitted: 2 });
  });
});

describe('agent tools', () => {
  const noop = tool({ inputSchema: z.object({}), execute: async () => 'ok' });
  const provider = staticTools({ mail: { send: noop, read: noop }, web: { search: noop } });

  test("the integrations' tools are merged; approval covers an integration or a single tool", () => {
    const merged = agentTools(provider, { tool: 'mail', tools: ['mail', 'web'], require_approval: ['send', 'web'] });
    expect([Object.keys(merged.tools ?? {}), [...merged.integrationOf], merged.approval]).toStrictEqual([
      ['send', 'read', 'search'],
      [
        ['send', 'mail'],
        ['read', 'mail'],
        ['search', 'web'],
      ],
      { send: 'user-approval', search: 'user-approval' },
    ]);
    expect(toolsUsed(['search', 'send', 'search', 'read', 'made-up'], merged.integrationOf)).toStrictEqual([
      'web',
      'mail',
    ]);
  });

  test('no tools, no approval; an integration the server dropped is refused', () => {
    expect(agentTools(provider, { tool: null, tools: [], require_approval: [] })).toStrictEqual({
      tools: undefined,
      integrationOf: new Map(),
      approval: undefined,
    });
    expect(() => agentTools(provider, { tool: 'gone', tools: ['gone'], require_approval: [] })).toThrow(
      'The server no longer offers the tool "gone"',
    );
  });
});
