/** Test support: raw HTTP over a socket, for requests no HTTP client would send (`@agenthost/express/test`). */
export { envelopeResponse, exchange, parseResponse, type RawExchange, type RawResponse } from './test-raw-http.js';
