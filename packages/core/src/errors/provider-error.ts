import { AgentHostError } from './agenthost-error.js';

/** How a provider call failed. */
export type ProviderFailure = 'error' | 'timeout' | 'rate_limited';

const MESSAGES: Record<ProviderFailure, string> = {
  error: 'The model provider failed to answer',
  timeout: 'The model provider did not answer in time',
  rate_limited: 'The model provider is rate limiting this server; retry later',
};

/**
 * The model provider failed (`provider_error`: 5xx, a reset connection, an answer that is not the
 * API's shape, or the provider refusing this server's credentials), did not answer in time
 * (`provider_timeout`), or rate limited this server (`provider_rate_limited`, with
 * `retryAfterSeconds`). Messages are generic on purpose; the provider's own error is `cause`, for
 * the server log.
 */
export class ProviderError extends AgentHostError {
  constructor({ failure = 'error', cause, retryAfterSeconds }: { failure?: ProviderFailure; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super({
      code: failure === 'timeout' ? 'provider_timeout' : failure === 'rate_limited' ? 'provider_rate_limited' : 'provider_error',
      message: MESSAGES[failure],
      cause,
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    });
    this.name = 'ProviderError';
  }
}
