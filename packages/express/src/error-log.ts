import { AgentHostError, type ErrorCode, type ProviderError, redactSecrets } from '@agenthost/core';

const MAX_CAUSE_DEPTH = 5;
const PROVIDER_CODES: ReadonlySet<ErrorCode> = new Set(['provider_error', 'provider_timeout', 'provider_rate_limited']);

/** Anything thrown can have fields of any type; describing it must not throw inside the error handler. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return '[unprintable]';
  }
}

/** By code, not class: works across copies of the core package, like `AgentHostError.isInstance`. */
const isProviderError = (error: unknown): error is ProviderError =>
  AgentHostError.isInstance(error) && PROVIDER_CODES.has(error.code);

/**
 * A provider failure as its summary: the cause (prompt, provider body, echoed keys) is never described,
 * and of the summary only its known fields, in case a `ProviderError` was made by hand.
 */
function describeProviderError(error: ProviderError, secrets: readonly string[]): Record<string, unknown> {
  const redact = (value: unknown) => redactSecrets(text(value), { secrets });
  const out: Record<string, unknown> = { name: error.name, code: error.code, message: redact(error.message) };
  const summary = error.provider;
  if (summary) {
    out.provider = {
      name: redact(summary.name),
      ...(summary.host !== undefined && { host: redact(summary.host) }),
      ...(typeof summary.status === 'number' && { status: summary.status }),
      ...(summary.code !== undefined && { code: redact(summary.code) }),
      ...(summary.message !== undefined && { message: redact(summary.message) }),
    };
  }
  return out;
}

/**
 * An error and its causes as log fields, never sent to a client: for a `ProviderError`, its safe
 * summary; for anything else, name, code, message and stack, and the same of its causes, each with
 * `secrets` and whatever looks like a secret redacted (messages of unknown errors can hold keys too).
 * Other properties (a provider's `responseBody`, `requestBodyValues`) are never read.
 */
export function describeError(error: unknown, secrets: readonly string[], depth = 0): Record<string, unknown> {
  const redact = (value: unknown) => redactSecrets(text(value), { secrets });
  if (isProviderError(error)) return describeProviderError(error, secrets);
  if (!(error instanceof Error)) return { value: redact(error) };
  const out: Record<string, unknown> = { name: redact(error.name), message: redact(error.message) };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') out.code = redact(code);
  else if (typeof code === 'number') out.code = code;
  if (typeof error.stack === 'string') out.stack = redact(error.stack);
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = describeError(error.cause, secrets, depth + 1);
  return out;
}
