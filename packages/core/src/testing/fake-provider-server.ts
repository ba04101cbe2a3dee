import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One message of a request, normalised from any provider's API to a role and its text. */
export interface FakeMessage {
  /** `system`, `user`, `assistant` (a tool call is `call name({...})`) or `tool` (a tool's result). */
  role: string;
  content: string;
  /** The images and files of the message, as the provider received them (only when it has any). */
  media?: FakeMedia[];
}

/** An image or file a request carried: its bytes (base64, from a data URL) or its URL, as sent. */
export interface FakeMedia {
  type: 'image' | 'file';
  media_type?: string;
  /** The base64 bytes, when sent inline. */
  data?: string;
  /** The URL, when sent by URL. */
  url?: string;
  filename?: string;
}

/** An image or file of a request from a URL that may be a `data:` URL (its media type and base64 bytes). */
export function fakeMedia(type: FakeMedia['type'], url: string, filename?: string): FakeMedia {
  const inline = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  const source = inline ? { media_type: inline[1], data: inline[2] } : { url };
  return { type, ...source, ...(filename !== undefined && { filename }) };
}

/** A request as a fake provider received it. */
export interface FakeProviderRequest<Api extends string = string> {
  /** Which of the provider's APIs the request used. */
  api: Api;
  method: string;
  /** The path, without the query. */
  path: string;
  /** The request's headers, as received (lower-case names): the API key among them. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, as sent. */
  body: Record<string, unknown>;
  model: string;
  /** The conversation in order: the system instruction, then user, assistant and tool messages. */
  messages: FakeMessage[];
  /** Whether the client asked for a streamed answer. */
  stream: boolean;
  /** Names of the tools the client offered. */
  tools: string[];
  /** Whether the whole answer was sent; false while it is being sent, or when the client went away first. */
  completed: boolean;
  /** Whether the client went away (aborted its request) before the whole answer was sent. */
  aborted: boolean;
}

/** A tool call the fake model makes. */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The call's id, where the wire format carries one (OpenAI); default `call_1`, `call_2`... within the answer. */
  id?: string;
}

/** How a text or tool-call answer is sent. */
export interface FakeAnswerOptions {
  /** Token counts reported with the answer (default 0 and 0). */
  usage?: { input: number; output: number };
  /** Send the answer as a stream (`true`) or as one JSON body (`false`), whatever the client asked (default: as it asked). */
  stream?: boolean;
  /**
   * When streamed, stop after the text or tool calls, before the API's finish: an answer cut off
   * mid-way. No `finish_reason`, usage or `[DONE]` (Chat Completions), no `response.completed`
   * (Responses), no `content_block_stop`, `message_delta` or `message_stop` (Anthropic), no
   * `finishReason` or `usageMetadata` (Gemini).
   */
  unfinished?: boolean;
}

/** A text answer or tool calls: what a fake model says, before it is put in a provider's wire format. */
export type FakeAnswer = { text: string; chunks?: string[] } | { toolCalls: FakeToolCall[] };

/** How a fake provider answers one request. */
export type FakeReply =
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

/** Decides a fake provider's answer to a request. */
export type FakeProviderHandler<Request extends FakeProviderRequest = FakeProviderRequest> = (
  request: Request,
) => FakeReply | Promise<FakeReply>;

/** A running fake provider; `baseURL` is what the provider's `create…({ baseURL })` takes. */
export interface FakeProviderServer<Request extends FakeProviderRequest = FakeProviderRequest> {
  baseURL: string;
  /** Every request received, oldest first. */
  requests: Request[];
  /** Replaces the reply handler. */
  reply(handler: FakeProviderHandler<Request>): void;
  close(): Promise<void>;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** The default reply of every fake: `Reply to: <last user message>`, usage counted in words (plus one per message) over the whole prompt. */
export function defaultFakeReply(request: Pick<FakeProviderRequest, 'messages'>): FakeReply {
  const last = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const text = `Reply to: ${last}`;
  return {
    text,
    usage: { input: request.messages.reduce((n, m) => n + 1 + words(m.content), 0), output: words(text) },
  };
}

/** The pieces a text answer is streamed in: its `chunks`, or word by word with the spaces kept. */
export const pieces = (answer: { text: string; chunks?: string[] }): string[] =>
  answer.chunks ?? answer.text.match(/\S+\s*|\s+/g) ?? [];

/** The text of a tool's result as the model received it: a string as it is, anything else as JSON. */
export const resultText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** How an assistant's tool call reads in a normalised conversation. */
export const callText = (name: string, args: unknown): string =>
  `call ${name}(${typeof args === 'string' ? args : JSON.stringify(args)})`;

/** One server-sent event; `event` adds an `event:` line (Anthropic names every event). */
export const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** What the parts of a request a wire protocol reads, once the route matched. */
export interface FakeRequestSummary<Api extends string> {
  api: Api;
  model: string;
  messages: FakeMessage[];
  stream: boolean;
  tools: string[];
}

/** One provider's wire protocol, for {@link startFakeProviderServer}. */
export interface FakeWireProtocol<Api extends string> {
  /** The path `baseURL` ends in (`/v1`, `/v1beta`). */
  basePath: string;
  /** Reads a request to one of the protocol's routes; `undefined` for any other path (answered 404). */
  read(
    method: string,
    path: string,
    query: URLSearchParams,
    body: Record<string, unknown>,
  ): FakeRequestSummary<Api> | undefined;
  /** The JSON body of an error the fake itself answers (no such route, a body it cannot read). */
  errorBody(status: number, message: string): unknown;
  /** The answer as one JSON body. */
  json(request: FakeProviderRequest<Api>, answer: FakeAnswer, usage: { input: number; output: number }): unknown;
  /** The answer as server-sent events, each a whole frame; an `unfinished` stream stops before the finish. */
  events(
    request: FakeProviderRequest<Api>,
    answer: FakeAnswer,
    usage: { input: number; output: number },
    unfinished: boolean,
  ): Iterable<string>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readJson(req: AsyncIterable<unknown>): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function sendAnswer<Api extends string>(
  res: ServerResponse,
  protocol: FakeWireProtocol<Api>,
  request: FakeProviderRequest<Api>,
  reply: Extract<FakeReply, FakeAnswer>,
) {
  const usage = reply.usage ?? { input: 0, output: 0 };
  if (!(reply.stream ?? request.stream)) return sendJson(res, 200, protocol.json(request, reply, usage));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const delay = 'chunkDelayMs' in reply ? (reply.chunkDelayMs ?? 0) : 0;
  let first = true;
  for (const frame of protocol.events(request, reply, usage, reply.unfinished === true)) {
    if (!first && delay) await new Promise((resolve) => setTimeout(resolve, delay));
    // The client went away: stop writing, and the request stays not `completed`.
    if (res.destroyed) return;
    res.write(frame);
    first = false;
  }
  res.end();
}

/**
 * Starts a fake model provider on 127.0.0.1 (a free port) that speaks `protocol`: it records each
 * request, normalised, and answers as the reply handler decides (text or tool calls, as one body or
 * streamed; an error status, a raw body, a hang or a reset connection). What the OpenAI, Anthropic
 * and Gemini fakes share.
 */
export async function startFakeProviderServer<Api extends string>(
  protocol: FakeWireProtocol<Api>,
  handler: FakeProviderHandler<FakeProviderRequest<Api>>,
): Promise<FakeProviderServer<FakeProviderRequest<Api>>> {
  const requests: FakeProviderRequest<Api>[] = [];
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fake');
      const method = req.method ?? 'GET';
      const body = await readJson(req);
      const summary =
        body && method === 'POST' ? protocol.read(method, url.pathname, url.searchParams, body) : undefined;
      if (!body && method === 'POST')
        return sendJson(res, 400, protocol.errorBody(400, 'the body is not a JSON object'));
      if (!body || !summary) return sendJson(res, 404, protocol.errorBody(404, `no route ${method} ${url.pathname}`));
      const request: FakeProviderRequest<Api> = {
        ...summary,
        method,
        path: url.pathname,
        headers: req.headers,
        body,
        completed: false,
        aborted: false,
      };
      res.on('finish', () => {
        request.completed = true;
      });
      res.on('close', () => {
        if (!res.writableFinished) request.aborted = true;
      });
      requests.push(request);
      const reply = await handler(request);
      if ('hang' in reply) return;
      if ('reset' in reply) return req.socket.destroy();
      if ('raw' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
        return res.end(reply.raw);
      }
      if ('status' in reply) return sendJson(res, reply.status, reply.body, reply.headers);
      await sendAnswer(res, protocol, request, reply);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, protocol.errorBody(500, String(error)));
      else res.destroy();
    }
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${protocol.basePath}`,
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
