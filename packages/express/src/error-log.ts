import { AgentHostError, redactSecrets, type ErrorCode, type ProviderError } from '@agenthost/core';

const MAX_CAUSE_DEPTH = 5;
const PROVIDER_CODES: ReadonlySet<ErrorCode> = new Set(['provider_error', 'provider_timeout', 'provider_rate_limited']);

/** By code, not class: works across copies of the core package, like `AgentHostError.isInstance`. */
const isProviderError = (error: unknown): error is ProviderError => AgentHostError.isInstance(error) && PROVIDER_CODES.has(error.code);

/** A provider failure as its summary: the cause (prompt, provider body, echoed keys) is never described. */
function describeProviderError(error: ProviderError, secrets: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, code: error.code, message: redactSecrets(error.message, { secrets }) };
  const summary = error.provider;
  if (summary) out.provider = { ...summary, ...(summary.message !== undefined && { message: redactSecrets(summary.message, { secrets }) }) };
  return out;
}

/**
 * An error and its causes as log fields, never sent to a client: for a `ProviderError`, its safe
 * summary; for anything else, name, code, message and stack, and the same of its causes, each with
 * `secrets` and whatever looks like a secret redacted (messages of unknown errors can hold keys too).
 * Other properties (a provider's `responseBody`, `requestBodyValues`) are never read.
 */
export function describeError(error: unknown, secrets: readonly string[], depth = 0): Record<string, unknown> {
  const redact = (text: string) => redactSecrets(text, { secrets });
  if (isProviderError(error)) return describeProviderError(error, secrets);
  if (!(error instanceof Error)) return { value: redact(String(error)) };
  const out: Record<string, unknown> = { name: redact(error.name), message: redact(error.message) };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') out.code = redact(code);
  else if (typeof code === 'number') out.code = code;
  if (error.stack !== undefined) out.stack = redact(error.stack);
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = describeError(error.cause, secrets, depth + 1);
  return out;
}
