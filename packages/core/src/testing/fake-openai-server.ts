import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Which OpenAI API a request used. */
export type FakeOpenAIApi = 'chat' | 'responses';

/** One message of a request, normalised from either API to a role and its text. */
export interface FakeOpenAIMessage {
  role: string;
  content: string;
}

/** A request as the fake server received it. */
export interface FakeOpenAIRequest {
  api: FakeOpenAIApi;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, as sent. */
  body: Record<string, unknown>;
  model: string;
  /** The conversation in order: system/developer, then user, assistant and tool messages. */
  messages: FakeOpenAIMessage[];
  /** Whether the client asked for a streamed answer. */
  stream: boolean;
  /** Names of the tools the client offered. */
  tools: string[];
  /** Whether the whole answer was sent; false while it is being sent, or when the client went away first. */
  completed: boolean;
}

/** A tool call the fake model makes. */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** How a text or tool-call answer is sent. */
export interface FakeAnswerOptions {
  /** Token counts reported with the answer (default 0 and 0). */
  usage?: { input: number; output: number };
  /** Send the answer as a stream (`true`) or as one JSON body (`false`), whatever the client asked (default: as it asked). */
  stream?: boolean;
  /**
   * When streamed, stop after the text or tool calls, before the API's finish: no `finish_reason`,
   * usage or `[DONE]` (Chat Completions), no `response.completed` (Responses). An answer cut off mid-way.
   */
  unfinished?: boolean;
}

/** How the fake answers one request. */
export type FakeOpenAIReply =
  /** Text; streamed in `chunks` (default: word by word) when the client asked for a stream. */
  | ({ text: string; chunks?: string[]; chunkDelayMs?: number } & FakeAnswerOptions)
  /** The model calls tools instead of answering. */
  | ({ toolCalls: FakeToolCall[] } & FakeAnswerOptions)
  /** An HTTP error (or any status) with a JSON body. */
  | { status: number; body: unknown; headers?: Record<string, string> }
  /**
   * A body sent as it is, whatever the client asked: not JSON, an HTML page, an empty body, or a
   * stream of your own. `contentType` defaults to `application/json`.
   */
  | { raw: string; status?: number; contentType?: string }
  /** Never answers; the connection stays open until the client gives up. */
  | { hang: true }
  /** Closes the connection without an answer. */
  | { reset: true };

/** Decides the fake's answer. */
export type FakeOpenAIHandler = (request: FakeOpenAIRequest) => FakeOpenAIReply | Promise<FakeOpenAIReply>;

/** A running fake; `baseURL` is what `createOpenAI({ baseURL })` takes. */
export interface FakeOpenAIServer {
  baseURL: string;
  /** Every request received, oldest first. */
  requests: FakeOpenAIRequest[];
  /** Replaces the reply handler. */
  reply(handler: FakeOpenAIHandler): void;
  close(): Promise<void>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

interface WireItem {
  role?: string;
  type?: string;
  content?: unknown;
  name?: string;
  arguments?: string;
  output?: unknown;
  tool_calls?: { function: { name: string; arguments: string } }[];
}

function normalise(api: FakeOpenAIApi, body: Record<string, unknown>): FakeOpenAIMessage[] {
  const items = api === 'chat' ? body.messages : body.input;
  if (typeof items === 'string') return [{ role: 'user', content: items }];
  if (!Array.isArray(items)) return [];
  return (items as WireItem[]).flatMap((m): FakeOpenAIMessage[] => {
    if (m.type === 'function_call') return [{ role: 'assistant', content: `call ${m.name}(${m.arguments})` }];
    if (m.type === 'function_call_output') return [{ role: 'tool', content: typeof m.output === 'string' ? m.output : JSON.stringify(m.output) }];
    if (typeof m.role !== 'string') return [];
    if (m.tool_calls?.length) return m.tool_calls.map((c) => ({ role: 'assistant', content: `call ${c.function.name}(${c.function.arguments})` }));
    return [{ role: m.role, content: textOf(m.content) }];
  });
}

function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: string; function?: { name?: string } }[]) : [];
  return tools.map((t) => t.function?.name ?? t.name ?? '').filter(Boolean);
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** The default reply: `Reply to: <last user message>`, usage counted in words over the whole prompt. */
export const defaultFakeReply: FakeOpenAIHandler = (request) => {
  const last = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const text = `Reply to: ${last}`;
  return { text, usage: { input: request.messages.reduce((n, m) => n + 1 + words(m.content), 0), output: words(text) } };
};

const chatUsage = (usage: { input: number; output: number }) => ({ prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output });
const chatCalls = (calls: FakeToolCall[]) =>
  calls.map((c, i) => ({ id: `call_${i + 1}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));

function chatBody(model: string, reply: TextOrCalls, usage: { input: number; output: number }) {
  const message = 'toolCalls' in reply ? { role: 'assistant', content: null, tool_calls: chatCalls(reply.toolCalls) } : { role: 'assistant', content: reply.text };
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: 'toolCalls' in reply ? 'tool_calls' : 'stop', logprobs: null }],
    usage: chatUsage(usage),
  };
}

function* chatStream(model: string, reply: TextOrCalls, usage: { input: number; output: number }, unfinished: boolean) {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  yield chunk({ role: 'assistant', content: '' });
  if ('toolCalls' in reply) {
    for (const [index, call] of chatCalls(reply.toolCalls).entries()) yield chunk({ tool_calls: [{ index, ...call }] });
    if (unfinished) return;
    yield chunk({}, 'tool_calls');
  } else {
    for (const piece of pieces(reply)) yield chunk({ content: piece });
    if (unfinished) return;
    yield chunk({}, 'stop');
  }
  yield { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: chatUsage(usage) };
}

type TextOrCalls = { text: string; chunks?: string[] } | { toolCalls: FakeToolCall[] };

const pieces = (reply: { text: string; chunks?: string[] }) => reply.chunks ?? reply.text.match(/\S+\s*|\s+/g) ?? [];

const responsesUsage = (usage: { input: number; output: number }) => ({
  input_tokens: usage.input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: usage.output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: usage.input + usage.output,
});

function responsesOutput(reply: TextOrCalls) {
  if ('toolCalls' in reply) {
    return reply.toolCalls.map((c, i) => ({ type: 'function_call', id: `fc_${i + 1}`, call_id: `call_${i + 1}`, name: c.name, arguments: JSON.stringify(c.arguments), status: 'completed' }));
  }
  return [{ type: 'message', id: 'msg_fake', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [] }] }];
}

function responsesBody(model: string, reply: TextOrCalls, usage: { input: number; output: number }) {
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model,
    output: responsesOutput(reply),
    incomplete_details: null,
    usage: responsesUsage(usage),
  };
}

function* responsesStream(model: string, reply: TextOrCalls, usage: { input: number; output: number }, unfinished: boolean) {
  const base = { id: 'resp_fake', object: 'response', created_at: 1_700_000_000, model, incomplete_details: null };
  yield { type: 'response.created', response: { ...base, status: 'in_progress', output: [] } };
  const output = responsesOutput(reply);
  if ('toolCalls' in reply) {
    for (const [i, item] of output.entries()) {
      yield { type: 'response.output_item.added', output_index: i, item: { ...item, arguments: '', status: 'in_progress' } };
      yield { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: i, delta: (item as { arguments: string }).arguments };
      if (unfinished) return;
      yield { type: 'response.output_item.done', output_index: i, item };
    }
  } else {
    yield { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_fake', status: 'in_progress', role: 'assistant', content: [] } };
    for (const delta of pieces(reply)) yield { type: 'response.output_text.delta', item_id: 'msg_fake', output_index: 0, content_index: 0, delta, logprobs: [] };
    if (unfinished) return;
    yield { type: 'response.output_item.done', output_index: 0, item: output[0] };
  }
  yield { type: 'response.completed', response: { ...base, status: 'completed', output, usage: responsesUsage(usage) } };
}

/**
 * Starts an OpenAI-compatible server on 127.0.0.1 (a free port) that answers `POST /v1/chat/completions`
 * and `POST /v1/responses`, streamed or not, and records each request. The reply handler decides each
 * answer: text or tool calls (streamed or one JSON body, as asked or as the reply says, or a stream
 * cut off before its finish), an error status, a raw body of any content type, a hang or a reset
 * connection.
 * For tests that drive the real `@ai-sdk/openai` provider without a network.
 */
export async function startFakeOpenAIServer(options: { reply?: FakeOpenAIHandler } = {}): Promise<FakeOpenAIServer> {
  let handler = options.reply ?? defaultFakeReply;
  const requests: FakeOpenAIRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const path = (req.url ?? '').split('?')[0] ?? '';
      const api: FakeOpenAIApi | undefined = path.endsWith('/chat/completions') ? 'chat' : path.endsWith('/responses') ? 'responses' : undefined;
      if (req.method !== 'POST' || !api) return send(404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const request: FakeOpenAIRequest = {
        api,
        method: req.method,
        path,
        headers: req.headers,
        body,
        model: String(body.model),
        messages: normalise(api, body),
        stream: body.stream === true,
        tools: toolNames(body),
        completed: false,
      };
      res.on('finish', () => {
        request.completed = true;
      });
      requests.push(request);
      const reply = await handler(request);
      if ('hang' in reply) return;
      if ('reset' in reply) return req.socket.destroy();
      if ('raw' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
        return res.end(reply.raw);
      }
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        return res.end(JSON.stringify(reply.body));
      }
      const usage = reply.usage ?? { input: 0, output: 0 };
      if (!(reply.stream ?? request.stream)) return send(200, api === 'chat' ? chatBody(request.model, reply, usage) : responsesBody(request.model, reply, usage));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const delay = 'chunkDelayMs' in reply ? (reply.chunkDelayMs ?? 0) : 0;
      const unfinished = reply.unfinished === true;
      for (const event of api === 'chat' ? chatStream(request.model, reply, usage, unfinished) : responsesStream(request.model, reply, usage, unfinished)) {
        if (res.destroyed) return;
        res.write(`data: ${JSON.stringify(event)}\n\n`);
        if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      }
      res.end(api === 'chat' && !unfinished ? 'data: [DONE]\n\n' : '');
    } catch (error) {
      send(500, { error: { message: String(error), type: 'server_error' } });
    }
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (next) => {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
