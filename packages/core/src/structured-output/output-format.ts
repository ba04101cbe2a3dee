import { Ajv, type ValidateFunction } from 'ajv';
import secureMetaSchema from 'ajv/dist/refs/json-schema-secure.json' with { type: 'json' };
import { Output, jsonSchema } from 'ai';
import { InvalidInputError } from './errors/invalid-input-error.js';
import { jsonDepth } from './json-depth.js';

/** Largest JSON Schema a run may bring, in characters of its JSON text. */
export const MAX_JSON_FORMAT_LENGTH = 32_768;
/** Deepest nesting a run's JSON Schema may have. */
export const MAX_JSON_FORMAT_DEPTH = 32;

/** Largest count a run's schema may demand (`minItems`, `minProperties`) and longest string (`minLength`). */
const MAX_DEMANDED = { minItems: 1_000, minProperties: 1_000, minLength: 100_000 } as const;

/** The first demand in a schema that no run could meet within its output cap, if any. */
function excessiveDemand(schema: unknown): string | undefined {
  const stack: unknown[] = [schema];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    for (const [keyword, max] of Object.entries(MAX_DEMANDED)) {
      const n = (v as Record<string, unknown>)[keyword];
      if (typeof n === 'number' && n > max) return `${keyword} ${n} is more than a run can produce (at most ${max})`;
    }
    stack.push(...Object.values(v));
  }
  return undefined;
}


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
  if (jsonDepth(schema, MAX_JSON_FORMAT_DEPTH) > MAX_JSON_FORMAT_DEPTH) throw invalid(`json_format is nested more than ${MAX_JSON_FORMAT_DEPTH} levels deep`);
  const demand = excessiveDemand(schema);
  if (demand) throw invalid(`json_format asks for too much: ${demand}`);
  let validate: ValidateFunction;
  try {
    if (!isSecure(schema)) throw invalid(`json_format is not a JSON Schema this server accepts: ${ajv.errorsText(isSecure.errors)}`);
    validate = ajv.compile(schema);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    // Never echo an internal failure (such as running out of stack) as if it were about the schema.
    if (error instanceof RangeError) throw invalid('json_format is too complex for this server');
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
