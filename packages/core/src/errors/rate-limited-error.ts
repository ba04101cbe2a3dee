import { AgentHostError } from './agenthost-error.js';

/**
 * The caller has too much in progress, or sent too much too fast; it should wait before trying
 * again (`retryAfterSeconds`). Nothing was changed.
 */
export class RateLimitedError extends AgentHostError {
  constructor({
    message = 'Too many requests; retry later',
    cause,
    retryAfterSeconds = 1,
  }: { message?: string; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super({ code: 'rate_limited', message, cause, retryAfterSeconds });
    this.name = 'RateLimitedError';
  }
}
