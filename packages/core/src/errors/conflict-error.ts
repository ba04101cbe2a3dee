import { AgentHostError } from './agenthost-error.js';

/**
 * The operation waited for something else to finish (for example another run of the same session)
 * and gave up after its bound. Retrying later can succeed.
 */
export class ConflictError extends AgentHostError {
  constructor({
    message = 'Another operation on the same resource is in progress; retry later',
    cause,
    retryAfterSeconds,
  }: { message?: string; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super({ code: 'conflict', message, cause, ...(retryAfterSeconds !== undefined && { retryAfterSeconds }) });
    this.name = 'ConflictError';
  }
}
