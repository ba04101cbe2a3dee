import { type IncomingMessage, maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { refusal, serialize } from './envelope.js';
import type { HttpErrorCode } from './error-codes.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The fields of Node's HTTP sockets read here, which its type declarations leave out. */
interface HttpSocket extends Duplex {
  /** The response in flight on this connection, until it finishes; `_headerSent` once its first bytes were written. */
  _httpMessage?: { _headerSent?: boolean } | null;
  /** The connection's parser; `incoming` is the request being read, cleared once it is answered and its body has ended. */
  parser?: { incoming?: { complete: boolean } | null } | null;
}

/**
 * Whether an answer may still be written: Node's rule (the socket is writable and no response on it
 * has begun), and one more. A request answered before its body arrived (a 401 before the upload)
 * has no response in flight, yet its body is still awaited; a 408 then would be a second answer to it.
 */
function mayAnswer(error: NodeJS.ErrnoException, socket: HttpSocket): boolean {
  // A reset peer reads nothing.
  if (error.code === 'ECONNRESET' || !socket.writable) return false;
  const inFlight = socket._httpMessage;
  if (inFlight) return !inFlight._headerSent;
  const current = socket.parser?.incoming;
  return !current || current.complete;
}

/** The error code and message for an error of Node's HTTP parser or its slow-client timers. */
function nodeRefusal(server: Server, code: string | undefined): { code: HttpErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW': {
      // 0 or unset means the process-wide default (`--max-http-header-size`).
      const limit = (server as { maxHeaderSize?: number }).maxHeaderSize || maxHeaderSize;
      return {
        code: 'headers_too_large',
        message: `Request line and headers are larger than the limit of ${limit} bytes`,
      };
    }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'Chunk extensions in the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT': {
      const limits = [
        server.headersTimeout && `headers are allowed ${server.headersTimeout} ms`,
        server.requestTimeout && `the whole request ${server.requestTimeout} ms`,
      ];
      return {
        code: 'request_timeout',
        message: `The request did not arrive in time: ${limits.filter(Boolean).join(', ')}`,
      };
    }
    default:
      // The parser's own reason ("Parse Error: ...") stays on the server: it names internals.
      return { code: 'malformed_request', message: 'Malformed HTTP request' };
  }
}

/** A whole HTTP/1.1 response that closes the connection, with an error envelope as its body. */
function rawEnvelope(code: HttpErrorCode, message: string): string {
  const { status, body: envelope } = refusal(code, message);
  const body = serialize(envelope, false);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `Content-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n` +
    body
  );
}

/**
 * The `clientError` listener: Node's own `socketOnError` (lib/_http_server.js, the same on Node 20
 * to 24) with an envelope instead of its empty answer. A listener takes over the socket, so it must
 * close it in every case; as Node does, it closes at once rather than wait for a client that may
 * never read.
 */
function answerClientError(this: Server, error: NodeJS.ErrnoException, socket: HttpSocket): void {
  if (mayAnswer(error, socket)) {
    const { code, message } = nodeRefusal(this, error.code);
    socket.write(rawEnvelope(code, message));
  }
  socket.destroy();
}

/** The `checkExpectation` listener: Node would answer a bare 417 to any `Expect` but 100-continue. */
function answerExpectation(_req: IncomingMessage, res: ServerResponse): void {
  const body = serialize(
    refusal('expectation_failed', 'Expectation failed: only "Expect: 100-continue" is supported').body,
    false,
  );
  // The request body, if the client sends one anyway, is never read: the connection closes after this.
  res
    .writeHead(417, {
      'Content-Type': JSON_TYPE,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      Connection: 'close',
    })
    .end(body);
}

/**
 * Makes the refusals of Node's HTTP layer JSON error envelopes, like every other answer of the API.
 * Node answers these itself, before any Express code runs, with an empty body:
 *
 * - request line and headers over `maxHeaderSize`: 431;
 * - chunk extensions over Node's limit: 413;
 * - headers past `headersTimeout`, or the whole request past `requestTimeout`: 408;
 * - anything else its parser rejects (a duplicate `Content-Length`, a bad request line...): 400;
 * - an `Expect` header other than `100-continue`: 417.
 *
 * Each answer carries `Connection: close`, and the connection is closed after it. As Node does, no
 * answer is written when the client reset the connection or a response on it has already begun, nor
 * (stricter than Node) when the request was already answered while its body was still to come; the
 * connection is only closed. The parser's own error text never reaches the client.
 *
 * Call it once on the server the app listens on (calling it again changes nothing). It owns the
 * server's `clientError` and `checkExpectation` events: add no other listener to them.
 *
 * @example
 * const server = answerClientErrors(http.createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, app));
 * server.listen(3000);
 * // or, with app.listen:
 * answerClientErrors(app.listen(3000));
 */
export function answerClientErrors<S extends Server>(server: S): S {
  if (!server.listeners('clientError').includes(answerClientError)) server.on('clientError', answerClientError);
  if (!server.listeners('checkExpectation').includes(answerExpectation))
    server.on('checkExpectation', answerExpectation);
  return server;
}
