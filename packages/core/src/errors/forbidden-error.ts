import { AgentHostError } from './agenthost-error.js';

/** The caller is known but may not do this (for example an API key without the needed scope). */
export class ForbiddenError extends AgentHostError {
  constructor({ message = 'This API key may not do that', cause }: { message?: string; cause?: unknown } = {}) {
    super({ code: 'forbidden', message, cause });
    this.name = 'ForbiddenError';
  }
}
