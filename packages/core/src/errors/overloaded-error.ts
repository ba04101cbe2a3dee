import { AgentHostError } from './agenthost-error.js';

/**
 * The server could not do the work in time because too much else was waiting (for example checking a
 * `json_format` schema past its deadline). Nothing was changed; retrying later can succeed.
 */
export class OverloadedError extends AgentHostError {
  constructor({
    message = 'The server is busy; retry later',
    cause,
    retryAfterSeconds = 1,
  }: { message?: string; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super({ code: 'overloaded', message, cause, retryAfterSeconds });
    this.name = 'OverloadedError';
  }
}
