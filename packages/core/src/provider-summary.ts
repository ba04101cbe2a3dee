import { APICallError } from 'ai';
import type { ProviderFailureSummary } from './errors/provider-error.js';
import { redactSecrets } from './redact-secrets.js';

const MAX_MESSAGE_LENGTH = 200;
/** An error body is small; a longer one is not parsed for its code. */
const MAX_BODY_LENGTH = 64 * 1024;
const CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
/** Node's and undici's network error codes: `ECONNRESET`, `UND_ERR_SOCKET`. */
const SYSTEM_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parsed(body: string | undefined): unknown {
  if (body === undefined || body.length > MAX_BODY_LENGTH) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The provider's own code: OpenAI's `{error: {code, type}}`, Anthropic's `{error: {type}}`, Google's `{error: {status}}`. */
function errorCode(data: unknown): string | undefined {
  const inner = isRecord(data) && isRecord(data.error) ? data.error : data;
  if (!isRecord(inner)) return undefined;
  for (const field of ['code', 'type', 'status']) {
    const value = inner[field];
    if (typeof value === 'string' && CODE.test(value) && redactSecrets(value) === value) return value;
  }
  return undefined;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/** The first network error code along the cause chain. */
function systemCode(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && isRecord(current); depth++, current = current.cause) {
    if (typeof current.code === 'string' && SYSTEM_CODE.test(current.code)) return current.code;
  }
  return undefined;
}

/**
 * The error's own message only: causes are left out because the AI SDK's quote what the provider sent.
 * So do the AI SDK's own errors other than an API call's (`JSONParseError` its text,
 * `TypeValidationError` its value, `InvalidResponseDataError` its data: all model output), so of
 * those only the name is kept.
 */
function describe(error: unknown): string {
  let text: string;
  try {
    const name = isRecord(error) && typeof error.name === 'string' ? error.name : '';
    if (name.startsWith('AI_') && !APICallError.isInstance(error)) text = name;
    else text = isRecord(error) && typeof error.message === 'string' ? error.message : String(error);
  } catch {
    text = 'unknown error';
  }
  const short = redactSecrets(text, { maxLength: MAX_MESSAGE_LENGTH }).replace(/\s+/g, ' ').trim();
  const code = systemCode(error);
  return code && !short.includes(code) ? `${short} (${code})` : short;
}

/**
 * What a log may say about what a model call threw (after retries: the last attempt): for an API
 * call, the host, status and the provider's error code from its body; a short redacted message always.
 * `provider` is the model's provider id.
 */
export function summarizeProviderFailure(error: unknown, provider: string | undefined): ProviderFailureSummary {
  if (!APICallError.isInstance(error)) return { name: provider ?? 'unknown', message: describe(error) };
  const host = hostOf(error.url);
  const code = errorCode(error.data) ?? errorCode(parsed(error.responseBody));
  return {
    name: provider ?? host ?? 'unknown',
    ...(host && { host }),
    ...(error.statusCode !== undefined && { status: error.statusCode }),
    ...(code && { code }),
    message: describe(error),
  };
}
