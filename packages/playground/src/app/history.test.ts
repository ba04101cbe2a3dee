import { describe, expect, test } from 'vitest';
import { historyMessages, uiParts } from './history';

describe('stored messages as chat messages', () => {
  test('a message without parts (an older server) is its text', () => {
    expect(uiParts({ role: 'user', content: 'hi' })).toStrictEqual([{ type: 'text', text: 'hi' }]);
  });

  test('a user message with an image and a file: data as data: URLs, addresses as they are', () => {
    expect(
      uiParts({
        role: 'user',
        content: 'look',
        parts: [
          { type: 'text', text: 'look' },
          { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'file', media_type: 'application/pdf', filename: 'a.pdf', url: 'https://example.com/a.pdf' },
        ],
      }),
    ).toStrictEqual([
      { type: 'text', text: 'look' },
      { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,iVBORw0KGgo=' },
      { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/a.pdf', filename: 'a.pdf' },
    ]);
  });

  test('tool calls with their results, an approved call, a denied one and a failed one: one tool part each', () => {
    expect(
      uiParts({
        role: 'assistant',
        content: 'Done.',
        parts: [
          { type: 'tool-call', tool_call_id: 'c1', tool_name: 'add', input: { a: 1, b: 2 } },
          { type: 'tool-result', tool_call_id: 'c1', tool_name: 'add', output: 3 },
          { type: 'tool-call', tool_call_id: 'c2', tool_name: 'datetime', input: {} },
          { type: 'tool-approval-request', approval_id: 'a2', tool_call_id: 'c2' },
          { type: 'tool-call', tool_call_id: 'c3', tool_name: 'datetime', input: { zone: 'UTC' } },
          { type: 'tool-approval-request', approval_id: 'a3', tool_call_id: 'c3' },
          { type: 'tool-approval-response', approval_id: 'a2', approved: true },
          { type: 'tool-approval-response', approval_id: 'a3', approved: false, reason: 'not now' },
          { type: 'tool-result', tool_call_id: 'c2', tool_name: 'datetime', output: '2026-11-24' },
          { type: 'tool-result', tool_call_id: 'c3', tool_name: 'datetime', output: 'not now', is_error: true },
          { type: 'tool-call', tool_call_id: 'c4', tool_name: 'add', input: {} },
          { type: 'tool-result', tool_call_id: 'c4', tool_name: 'add', output: 'a is required', is_error: true },
          { type: 'tool-result', tool_call_id: 'unknown', tool_name: 'add', output: 1 },
          { type: 'text', text: 'Done.' },
        ],
      }),
    ).toStrictEqual([
      { type: 'tool-add', toolCallId: 'c1', state: 'output-available', input: { a: 1, b: 2 }, output: 3 },
      {
        type: 'tool-datetime',
        toolCallId: 'c2',
        state: 'output-available',
        input: {},
        output: '2026-11-24',
        approval: { id: 'a2', approved: true },
      },
      {
        type: 'tool-datetime',
        toolCallId: 'c3',
        state: 'output-denied',
        input: { zone: 'UTC' },
        approval: { id: 'a3', approved: false, reason: 'not now' },
      },
      { type: 'tool-add', toolCallId: 'c4', state: 'output-error', input: {}, errorText: 'a is required' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  test('a session with approvals pending ends with an assistant message whose calls can be answered', () => {
    expect(
      historyMessages(
        's1',
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'Echo: hi' },
        ],
        [{ approval_id: 'a1', tool_call_id: 'c1', tool_name: 'datetime', input: { zone: 'UTC' } }],
      ),
    ).toStrictEqual([
      { id: 's1-0', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { id: 's1-1', role: 'assistant', parts: [{ type: 'text', text: 'Echo: hi' }] },
      {
        id: 's1-pending',
        role: 'assistant',
        parts: [
          {
            type: 'tool-datetime',
            toolCallId: 'c1',
            state: 'approval-requested',
            input: { zone: 'UTC' },
            approval: { id: 'a1' },
          },
        ],
        metadata: { session_id: 's1' },
      },
    ]);
  });
});
