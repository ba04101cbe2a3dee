import { AgentHostError } from './agenthost-error.js';

/**
 * The named thing does not exist for this account. An agent of another account gives the very same
 * error, so that ids of other accounts cannot be probed.
 */
export class NotFoundError extends AgentHostError {
  constructor({ message = 'Not found', cause }: { message?: string; cause?: unknown } = {}) {
    super({ code: 'not_found', message, cause });
    this.name = 'NotFoundError';
  }
}
