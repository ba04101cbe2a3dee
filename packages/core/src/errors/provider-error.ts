import { AgentHostError } from './agenthost-error.js';

/**
 * The model provider failed (`provider_error`) or did not answer in time (`provider_timeout`). The
 * message is generic on purpose; the provider's own error is kept as `cause` for the server log.
 */
export class ProviderError extends AgentHostError {
  constructor({ timeout = false, cause }: { timeout?: boolean; cause?: unknown } = {}) {
    super({
      code: timeout ? 'provider_timeout' : 'provider_error',
      message: timeout ? 'The model provider did not answer in time' : 'The model provider failed to answer',
      cause,
    });
    this.name = 'ProviderError';
  }
}
