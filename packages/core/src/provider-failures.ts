import { APICallError, RetryError } from 'ai';
import { ProviderError } from './errors/provider-error.js';
import { summarizeProviderFailure } from './provider-summary.js';

const DEFAULT_RETRY_AFTER = 5;
const MAX_RETRY_AFTER = 300;

function retryAfter(headers: Record<string, string> | undefined): number {
  const raw = headers?.['retry-after-ms'] ?? headers?.['retry-after'];
  if (!raw) return DEFAULT_RETRY_AFTER;
  const ms = headers?.['retry-after-ms'] ? Number(raw) : Number(raw) * 1000;
  const fromDate = Number.isNaN(ms) ? Date.parse(raw) - Date.now() : ms;
  if (!Number.isFinite(fromDate) || fromDate <= 0) return DEFAULT_RETRY_AFTER;
  return Math.min(MAX_RETRY_AFTER, Math.ceil(fromDate / 1000));
}

/**
 * Classifies what a model call threw, after the AI SDK's own retries: a timeout of ours, a provider
 * 429 (rate limited, with its Retry-After), or any other failure (5xx, reset connection, malformed
 * answer, rejected credentials). The error carries a summary safe to log (see `ProviderError.provider`);
 * `provider` is the model's provider id.
 */
export function providerFailure(
  error: unknown,
  { timedOut, provider }: { timedOut: boolean; provider?: string },
): ProviderError {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const summary = summarizeProviderFailure(last, provider);
  if (timedOut) return new ProviderError({ failure: 'timeout', cause: error, provider: summary });
  if (APICallError.isInstance(last) && last.statusCode === 429) {
    return new ProviderError({
      failure: 'rate_limited',
      cause: error,
      retryAfterSeconds: retryAfter(last.responseHeaders),
      provider: summary,
    });
  }
  return new ProviderError({ failure: 'error', cause: error, provider: summary });
}
