import { InvalidInputError } from '../errors/invalid-input-error.js';
import { jsonDepth } from '../json-depth.js';
import { jsonLength } from '../json-length.js';
import { answerDemand } from './answer-demand.js';

/** Largest JSON Schema a run may bring, in characters of its JSON text. */
export const MAX_JSON_FORMAT_LENGTH = 32_768;
/** Deepest nesting a run's JSON Schema may have. */
export const MAX_JSON_FORMAT_DEPTH = 32;
/** Most regular expressions (`pattern` values and `patternProperties` keys) a run's schema may hold. */
export const MAX_JSON_FORMAT_PATTERNS = 100;
/** Longest regular expression in a run's schema, in characters. */
export const MAX_JSON_FORMAT_PATTERN_LENGTH = 1_000;
/** Characters an answer may hold per token of the output limit, for the bound on what a schema demands. */
export const ANSWER_CHARS_PER_TOKEN = 4;

/** A client's schema, parsed and within the static limits. */
export interface JsonFormat {
  schema: Record<string, unknown>;
  /** Its JSON text: what the sandbox compiles, and its cache key. */
  text: string;
}

export function invalidFormat(message: string): InvalidInputError {
  return new InvalidInputError({ details: { json_format: { message, path: ['json_format'] } } });
}

function parse(jsonFormat: unknown): Record<string, unknown> {
  let schema = jsonFormat;
  if (typeof jsonFormat === 'string') {
    if (jsonFormat.length > MAX_JSON_FORMAT_LENGTH)
      throw invalidFormat(`json_format must be at most ${MAX_JSON_FORMAT_LENGTH} characters`);
    // Bounded by the length check: the text is parsed before its depth is known.
    try {
      schema = JSON.parse(jsonFormat);
    } catch (error) {
      throw invalidFormat(
        error instanceof RangeError
          ? `json_format is nested more than ${MAX_JSON_FORMAT_DEPTH} levels deep`
          : 'json_format is a string that is not JSON',
      );
    }
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw invalidFormat('json_format must be a JSON Schema object');
  return schema as Record<string, unknown>;
}

/** Every regular expression of a schema: `pattern` strings and `patternProperties` keys. */
function patterns(schema: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const node = v as Record<string, unknown>;
    if (typeof node.pattern === 'string') found.push(node.pattern);
    if (node.patternProperties !== null && typeof node.patternProperties === 'object')
      found.push(...Object.keys(node.patternProperties));
    stack.push(...Object.values(node));
  }
  return found;
}

function checkPatterns(schema: unknown): void {
  const all = patterns(schema);
  if (all.length > MAX_JSON_FORMAT_PATTERNS)
    throw invalidFormat(`json_format has ${all.length} patterns; at most ${MAX_JSON_FORMAT_PATTERNS} are allowed`);
  if (all.some((p) => p.length > MAX_JSON_FORMAT_PATTERN_LENGTH))
    throw invalidFormat(`json_format has a pattern over ${MAX_JSON_FORMAT_PATTERN_LENGTH} characters`);
}

/**
 * Reads a run's `json_format` (a schema object or its JSON text) and applies the limits that need no
 * compiling: size, depth, patterns, and what the schema demands of an answer, which must fit within
 * `maxOutputTokens`. Cheap (linear in the schema's size, which is bounded), so it runs before anything
 * else sees the schema.
 * @throws InvalidInputError naming the limit that was passed.
 */
export function readJsonFormat(jsonFormat: unknown, maxOutputTokens: number): JsonFormat {
  const schema = parse(jsonFormat);
  // Measured before it is walked or written out: an object schema can be as large as the request body.
  if (jsonLength(schema, MAX_JSON_FORMAT_LENGTH) > MAX_JSON_FORMAT_LENGTH)
    throw invalidFormat(`json_format must be at most ${MAX_JSON_FORMAT_LENGTH} characters`);
  if (jsonDepth(schema, MAX_JSON_FORMAT_DEPTH) > MAX_JSON_FORMAT_DEPTH)
    throw invalidFormat(`json_format is nested more than ${MAX_JSON_FORMAT_DEPTH} levels deep`);
  const text = JSON.stringify(schema);
  checkPatterns(schema);
  const cap = maxOutputTokens * ANSWER_CHARS_PER_TOKEN;
  const demand = answerDemand(schema, cap);
  if (demand > cap) {
    throw invalidFormat(
      `json_format asks for an answer longer than a run can produce (its smallest valid answer is over ${cap} characters: ${ANSWER_CHARS_PER_TOKEN} per token of the ${maxOutputTokens}-token output limit)`,
    );
  }
  return { schema, text };
}
