/**
 * Test support for code that serves the agenthost API: raw HTTP over a socket, for the requests no
 * HTTP client would send (malformed heads, slow clients), and the envelope refusals to expect back.
 * Import from `@agenthost/express/test`.
 */

export { envelopeResponse, exchange, parseResponse, type RawExchange, type RawResponse } from './test-raw-http.js';
