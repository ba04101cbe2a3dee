import type { RequestHandler } from 'express';

/**
 * Goes on with the request on the event loop's next turn (`setImmediate`), before any of the API's work.
 *
 * Under load, the requests whose bytes one poll of the event loop read are then parsed together and
 * handled one after another in the check phase, instead of each being handled to its first await inside
 * its own socket's read callback. Measured on the run route and GET agent with 50 connections, that cost
 * 15-25% less CPU a request on one machine (docs/performance.md, "What the ratios do not show"); a lone
 * request waits one turn of an idle loop, a few microseconds.
 */
export const yieldToLoop: RequestHandler = function agentHostYield(_req, _res, next) {
  setImmediate(next);
};
