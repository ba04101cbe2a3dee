import { AgentHostError } from './agenthost-error.js';

/** How a provider call failed. */
export type ProviderFailure = 'error' | 'timeout' | 'rate_limited';

/**
 * What a log may say about a provider failure: which provider, its status and its own error code, and
 * one short line with every secret-looking value redacted. Never the prompt, the provider's body or a
 * key, so it is safe to log as it is.
 */
export interface ProviderFailureSummary {
  /** The provider as its model names itself (`openai.chat`), else the host called, else `unknown`. */
  name: string;
  /** The host the call went to (`api.openai.com`, with its port if any): no scheme, path, query or credentials. */
  host?: string;
  /** The HTTP status the provider answered with. */
  status?: number;
  /** The provider's own error code or type, from its error body (`invalid_api_key`, `rate_limit_exceeded`). */
  code?: string;
  /** What failed in about 200 characters at most, secret-looking values redacted. */
  message?: string;
}

const MESSAGES: Record<ProviderFailure, string> = {
  error: 'The model provider failed to answer',
  timeout: 'The model provider did not answer in time',
  rate_limited: 'The model provider is rate limiting this server; retry later',
};

/**
 * The model provider failed (`provider_error`: 5xx, a reset connection, an answer that is not the
 * API's shape, or the provider refusing this server's credentials), did not answer in time
 * (`provider_timeout`), or rate limited this server (`provider_rate_limited`, with
 * `retryAfterSeconds`). Messages are generic on purpose. What a log needs is `provider`, a summary
 * safe to log; the provider's own error is `cause`, which can hold the prompt, the provider's body
 * and keys it echoes: never log it as it is.
 */
export class ProviderError extends AgentHostError {
  /** Provider, status, the provider's error code and a redacted message; set when the failure was classified. */
  readonly provider: ProviderFailureSummary | undefined;

  constructor({
    failure = 'error',
    cause,
    retryAfterSeconds,
    provider,
  }: {
    failure?: ProviderFailure;
    cause?: unknown;
    retryAfterSeconds?: number;
    provider?: ProviderFailureSummary;
  } = {}) {
    super({
      code:
        failure === 'timeout'
          ? 'provider_timeout'
          : failure === 'rate_limited'
            ? 'provider_rate_limited'
            : 'provider_error',
      message: MESSAGES[failure],
      cause,
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    });
    this.name = 'ProviderError';
    this.provider = provider && Object.freeze({ ...provider });
  }
}
