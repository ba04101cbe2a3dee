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
  /** The conversation in order: system/developer, then user and assistant turns. */
  messages: FakeOpenAIMessage[];
}

/** How the fake answers one request. */
export type FakeOpenAIReply =
  | { text: string; usage?: { input: number; output: number } }
  | { status: number; body: unknown };

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

function normalise(api: FakeOpenAIApi, body: Record<string, unknown>): FakeOpenAIMessage[] {
  const items = api === 'chat' ? body.messages : body.input;
  if (typeof items === 'string') return [{ role: 'user', content: items }];
  if (!Array.isArray(items)) return [];
  return items
    .filter((m: { role?: unknown }) => typeof m?.role === 'string')
    .map((m: { role: string; content?: unknown }) => ({ role: m.role, content: textOf(m.content) }));
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** The default reply: `Reply to: <last user message>`, usage counted in words over the whole prompt. */
export const defaultFakeReply: FakeOpenAIHandler = (request) => {
  const last = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const text = `Reply to: ${last}`;
  return { text, usage: { input: request.messages.reduce((n, m) => n + 1 + words(m.content), 0), output: words(text) } };
};

function chatBody(model: string, text: string, usage: { input: number; output: number }) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

function responsesBody(model: string, text: string, usage: { input: number; output: number }) {
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model,
    output: [
      {
        type: 'message',
        id: 'msg_fake',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
    incomplete_details: null,
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input + usage.output,
    },
  };
}

/**
 * Starts an OpenAI-compatible server on 127.0.0.1 (a free port) that answers `POST /v1/chat/completions`
 * and `POST /v1/responses` (non-streaming), and records each request. For tests that drive the real
 * `@ai-sdk/openai` provider without a network.
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
      };
      requests.push(request);
      const reply = await handler(request);
      if ('status' in reply) return send(reply.status, reply.body);
      const usage = reply.usage ?? { input: 0, output: 0 };
      send(200, api === 'chat' ? chatBody(request.model, reply.text, usage) : responsesBody(request.model, reply.text, usage));
    } catch (error) {
      send(500, { error: { message: String(error), type: 'server_error' } });
    }
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
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
