import { AgentHostError } from './agenthost-error.js';

/** No credentials, or credentials that name no account. */
export class UnauthenticatedError extends AgentHostError {
  constructor({ message = 'Invalid API key provided', cause }: { message?: string; cause?: unknown } = {}) {
    super({ code: 'unauthenticated', message, cause });
    this.name = 'UnauthenticatedError';
  }
}
