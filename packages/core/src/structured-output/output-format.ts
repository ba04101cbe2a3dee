import { jsonSchema, Output } from 'ai';
import { readJsonFormat } from './json-format.js';
import type { SchemaSandbox } from './schema-sandbox.js';

/** What a run's output format depends on. */
export interface OutputFormatRequest {
  jsonMode: boolean | undefined;
  jsonFormat: unknown;
  /** Whose schema it is: compiled schemas are kept apart per account. */
  accountId: string;
  /** The run's output limit, which bounds what a schema may demand. */
  maxOutputTokens: number;
  sandbox: SchemaSandbox;
  /** The run's signal: a request that goes away stops waiting for the sandbox. */
  signal?: AbortSignal;
}

/**
 * The AI SDK output specification of a run: none for plain text, `Output.json()` for `json_mode`,
 * or `Output.object` over the client's JSON Schema, which the answer must validate against. The
 * schema is checked against the static limits, then compiled in the sandbox, before any model call.
 * @throws InvalidInputError for a schema that does not parse, passes a limit, or does not compile;
 *   OverloadedError or RateLimitedError from the sandbox.
 */
export async function outputFormat({
  jsonMode,
  jsonFormat,
  accountId,
  maxOutputTokens,
  sandbox,
  signal,
}: OutputFormatRequest) {
  if (jsonFormat === undefined || jsonFormat === null) return jsonMode ? Output.json() : undefined;
  const { schema, text } = readJsonFormat(jsonFormat, maxOutputTokens);
  await sandbox.check(accountId, text, signal);
  return Output.object({
    schema: jsonSchema<unknown>(schema as never, {
      validate: async (value) => {
        const result = await sandbox.validate(accountId, text, value, signal);
        return result.ok ? { success: true, value } : { success: false, error: new Error(result.mismatch) };
      },
    }),
  });
}
