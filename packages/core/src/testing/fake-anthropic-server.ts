import {
  callText,
  defaultFakeReply,
  type FakeAnswer,
  type FakeMessage,
  type FakeProviderHandler,
  type FakeProviderRequest,
  type FakeProviderServer,
  type FakeToolCall,
  type FakeWireProtocol,
  pieces,
  resultText,
  sse,
  startFakeProviderServer,
} from './fake-provider-server.js';

/** A request as the fake Anthropic server received it (the Messages API: `api` is always `messages`). */
export type FakeAnthropicRequest = FakeProviderRequest<'messages'>;

/** Decides the fake Anthropic server's answer. */
export type FakeAnthropicHandler = FakeProviderHandler<FakeAnthropicRequest>;

/** A running fake; `baseURL` is what `createAnthropic({ baseURL })` takes. */
export type FakeAnthropicServer = FakeProviderServer<FakeAnthropicRequest>;

interface Block {
  type?: string;
  text?: string;
  name?: string;
  input?: unknown;
  content?: unknown;
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? (content as Block[]).map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('')
      : '';

/** One message's content blocks in order: adjacent text blocks joined, each tool use and tool result a message of its own. */
function blocks(role: string, content: unknown): FakeMessage[] {
  if (typeof content === 'string') return [{ role, content }];
  const out: FakeMessage[] = [];
  let text: FakeMessage | undefined;
  for (const block of Array.isArray(content) ? (content as Block[]) : []) {
    if (block.type === 'text') {
      if (text) text.content += block.text ?? '';
      else {
        text = { role, content: block.text ?? '' };
        out.push(text);
      }
      continue;
    }
    text = undefined;
    if (block.type === 'tool_use') out.push({ role: 'assistant', content: callText(block.name ?? '', block.input) });
    if (block.type === 'tool_result')
      out.push({
        role: 'tool',
        content: Array.isArray(block.content) ? textOf(block.content) : resultText(block.content),
      });
  }
  return out;
}

function normalise(body: Record<string, unknown>): FakeMessage[] {
  const system = body.system === undefined ? [] : [{ role: 'system', content: textOf(body.system) }];
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  return [...system, ...messages.flatMap((m) => blocks(m.role ?? '', m.content))];
}

const toolNames = (body: Record<string, unknown>): string[] =>
  Array.isArray(body.tools) ? (body.tools as { name?: string }[]).map((t) => t.name ?? '').filter(Boolean) : [];

const toolUses = (calls: FakeToolCall[]) =>
  calls.map((c, i) => ({ type: 'tool_use', id: `toolu_${i + 1}`, name: c.name, input: c.arguments }));

const contentOf = (answer: FakeAnswer) =>
  'toolCalls' in answer ? toolUses(answer.toolCalls) : [{ type: 'text', text: answer.text }];

const stopReason = (answer: FakeAnswer) => ('toolCalls' in answer ? 'tool_use' : 'end_turn');

/** Each content block's start and its deltas: one text block streamed in pieces, or a `tool_use` block per call with its input in one delta. */
function streamedBlocks(answer: FakeAnswer): { start: unknown; deltas: unknown[] }[] {
  if (!('toolCalls' in answer))
    return [
      { start: { type: 'text', text: '' }, deltas: pieces(answer).map((text) => ({ type: 'text_delta', text })) },
    ];
  return toolUses(answer.toolCalls).map((block) => ({
    start: { ...block, input: {} },
    deltas: [{ type: 'input_json_delta', partial_json: JSON.stringify(block.input) }],
  }));
}

function* streamEvents(
  model: string,
  answer: FakeAnswer,
  usage: { input: number; output: number },
  unfinished: boolean,
) {
  const message = {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: 0 },
  };
  yield sse({ type: 'message_start', message }, 'message_start');
  for (const [index, block] of streamedBlocks(answer).entries()) {
    yield sse({ type: 'content_block_start', index, content_block: block.start }, 'content_block_start');
    for (const delta of block.deltas) yield sse({ type: 'content_block_delta', index, delta }, 'content_block_delta');
    if (unfinished) return;
    yield sse({ type: 'content_block_stop', index }, 'content_block_stop');
  }
  yield sse(
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason(answer), stop_sequence: null },
      usage: { output_tokens: usage.output },
    },
    'message_delta',
  );
  yield sse({ type: 'message_stop' }, 'message_stop');
}

const anthropicProtocol: FakeWireProtocol<'messages'> = {
  basePath: '/v1',
  read: (_method, path, _query, body) =>
    path.endsWith('/messages')
      ? {
          api: 'messages',
          model: String(body.model),
          messages: normalise(body),
          stream: body.stream === true,
          tools: toolNames(body),
        }
      : undefined,
  errorBody: (status, message) => ({
    type: 'error',
    error: {
      type: status === 404 ? 'not_found_error' : status === 400 ? 'invalid_request_error' : 'api_error',
      message,
    },
  }),
  json: (request, answer, usage) => ({
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: contentOf(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  }),
  events: (request, answer, usage, unfinished) => streamEvents(request.model, answer, usage, unfinished),
};

/**
 * Starts a fake of Anthropic's Messages API on 127.0.0.1 (a free port): `POST {baseURL}/messages`,
 * answered as one JSON message or as named server-sent events (`message_start`, `content_block_*`,
 * `message_delta`, `message_stop`), text or `tool_use` blocks, with usage. Each request is recorded
 * with its conversation normalised (the `system` field first, tool uses and tool results in order)
 * and its headers (the key arrives as `x-api-key`). The reply handler decides each answer, as for
 * `startFakeOpenAIServer`; an API error is `{ status: 529, body: { type: 'error', error: { type:
 * 'overloaded_error', message: 'Overloaded' } } }`.
 * For tests that drive the real `@ai-sdk/anthropic` provider without a network.
 */
export function startFakeAnthropicServer(options: { reply?: FakeAnthropicHandler } = {}): Promise<FakeAnthropicServer> {
  return startFakeProviderServer(anthropicProtocol, options.reply ?? defaultFakeReply);
}
