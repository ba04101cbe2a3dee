import { Ajv, type ValidateFunction } from 'ajv';
import secureMetaSchema from 'ajv/dist/refs/json-schema-secure.json' with { type: 'json' };
import { Output, jsonSchema } from 'ai';
import { InvalidInputError } from './errors/invalid-input-error.js';

/** Largest JSON Schema a run may bring, in characters of its JSON text. */
export const MAX_JSON_FORMAT_LENGTH = 32_768;

const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
// Schemas come from clients: check them against Ajv's "secure" meta-schema first, which refuses the
// constructs that make validation slow (unbounded patterns on unbounded strings, and the like).
const isSecure = ajv.compile(secureMetaSchema);
const cache = new Map<string, ValidateFunction>();
const CACHE_SIZE = 100;

function invalid(message: string): InvalidInputError {
  return new InvalidInputError({ details: { json_format: { message, path: ['json_format'] } } });
}

function compile(text: string, schema: object): ValidateFunction {
  const hit = cache.get(text);
  if (hit) return hit;
  if (!isSecure(schema)) throw invalid(`json_format is not a JSON Schema this server accepts: ${ajv.errorsText(isSecure.errors)}`);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw invalid(`json_format is not a valid JSON Schema: ${(error as Error).message}`);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(text, validate);
  return validate;
}

/**
 * The AI SDK output specification of a run: none for plain text, `Output.json()` for `json_mode`,
 * or `Output.object` over the client's JSON Schema (given as an object or as its JSON text), which
 * the answer must validate against.
 * @throws InvalidInputError for a schema that does not parse, is too large, or is not acceptable.
 */
export function outputFormat(jsonMode: boolean | undefined, jsonFormat: unknown) {
  if (jsonFormat === undefined || jsonFormat === null) return jsonMode ? Output.json() : undefined;
  let schema: unknown = jsonFormat;
  if (typeof jsonFormat === 'string') {
    if (jsonFormat.length > MAX_JSON_FORMAT_LENGTH) throw invalid(`json_format must be at most ${MAX_JSON_FORMAT_LENGTH} characters`);
    try {
      schema = JSON.parse(jsonFormat);
    } catch {
      throw invalid('json_format is a string that is not JSON');
    }
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw invalid('json_format must be a JSON Schema object');
  const text = JSON.stringify(schema);
  if (text.length > MAX_JSON_FORMAT_LENGTH) throw invalid(`json_format must be at most ${MAX_JSON_FORMAT_LENGTH} characters`);
  const validate = compile(text, schema);
  return Output.object({
    schema: jsonSchema<unknown>(schema as never, {
      validate: (value) => (validate(value) ? { success: true, value } : { success: false, error: new Error(ajv.errorsText(validate.errors)) }),
    }),
  });
}
