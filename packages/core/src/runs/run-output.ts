import type { PendingTurn } from '../records.js';
import type { ServiceSettings } from '../service-options.js';
import { outputFormat } from '../structured-output/output-format.js';

/** The JSON answer a run asks for (`json_mode`, `json_format`), as a pending turn keeps it. */
export type OutputRequest = NonNullable<PendingTurn['output_format']>;

/** What a run input asks of its answer, or `undefined` for plain text. */
export function outputRequest(input: {
  json_mode?: boolean | null | undefined;
  json_format?: Record<string, unknown> | string | null | undefined;
}): OutputRequest | undefined {
  const { json_mode, json_format } = input;
  if (!json_mode && (json_format === undefined || json_format === null)) return undefined;
  return { ...(json_mode && { json_mode }), ...(json_format != null && { json_format }) };
}

/**
 * The AI SDK output specification of a request (none for plain text), its schema checked in the
 * service's sandbox for the account, and bounded by the answer's tokens (`maxOutputTokens`: the
 * agent's `max_output_tokens`, else the server's bound).
 * @throws what `outputFormat` throws.
 */
export function runOutput(
  settings: Pick<ServiceSettings, 'sandbox'>,
  { accountId, maxOutputTokens }: { accountId: string; maxOutputTokens: number },
  request: OutputRequest | undefined,
  signal: AbortSignal | undefined,
) {
  return outputFormat({
    jsonMode: request?.json_mode,
    jsonFormat: request?.json_format,
    accountId,
    maxOutputTokens,
    sandbox: settings.sandbox,
    ...(signal && { signal }),
  });
}
