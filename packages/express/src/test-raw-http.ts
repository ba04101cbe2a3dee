// Raw HTTP over a socket, for requests no HTTP client would send; shipped as `@agenthost/express/test`.
import { connect } from 'node:net';
import { codeForStatus, type HttpErrorCode } from './error-codes.js';

/** What a raw exchange brought back: every byte the server sent before the connection closed. */
export interface RawExchange {
  received: string;
  elapsedMs: number;
}

/** A response split into its status line, its headers (names lower-cased) and its JSON body. */
export interface RawResponse {
  statusLine: string;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Connects to `port`, writes `parts` one after another, `gapMs` apart (a slow client), and resolves
 * once the server has closed the connection. Writing stops when the server closes.
 */
export function exchange(
  port: number,
  parts: readonly string[],
  options: { gapMs?: number } = {},
): Promise<RawExchange> {
  const socket = connect(port, '127.0.0.1');
  const started = Date.now();
  let received = '';
  let timer: NodeJS.Timeout | undefined;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  // The server may cut the connection while parts are still going out; only what came back counts.
  socket.on('error', () => {});
  const writeFrom = (index: number) => {
    if (index >= parts.length || socket.destroyed) return;
    socket.write(parts[index]!);
    timer = setTimeout(() => writeFrom(index + 1), options.gapMs ?? 0);
  };
  socket.once('connect', () => writeFrom(0));
  return new Promise((resolve) =>
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ received, elapsedMs: Date.now() - started });
    }),
  );
}

/**
 * Splits the one response in `raw`. Throws unless the rest after the head is exactly one JSON text,
 * so anything written after the body (a second response) fails the test.
 */
export function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw)}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const text = raw.slice(end + 4);
  try {
    return { statusLine: statusLine!, headers, body: JSON.parse(text) };
  } catch {
    throw new Error(`the body is not one JSON text: ${JSON.stringify(text)}`);
  }
}

/**
 * The whole raw response an envelope refusal of `status` is (see `answerClientErrors`); its `code` is
 * the one the status stands for unless given.
 */
export function envelopeResponse(
  status: number,
  reason: string,
  error: string,
  extraHeaders: Record<string, string> = {},
  code: HttpErrorCode = codeForStatus(status),
): RawResponse {
  const body = { success: false, error, code, status };
  return {
    statusLine: `HTTP/1.1 ${status} ${reason}`,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(JSON.stringify(body))),
      'cache-control': 'no-store',
      connection: 'close',
      ...extraHeaders,
    },
    body,
  };
}
