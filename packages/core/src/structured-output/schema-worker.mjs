// @ts-check
// Runs in a worker thread (see schema-sandbox.ts): compiles clients' JSON Schemas and checks values
// against them, so that neither a large schema nor a costly value ever holds the main thread. The
// thread has a memory cap; the main thread stops any task that outlives its deadline.
import { createRequire } from 'node:module';
import { getHeapStatistics } from 'node:v8';
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';

const require = createRequire(import.meta.url);
const secureMetaSchema = require('ajv/dist/refs/json-schema-secure.json');

/** Most compiled schemas kept in all, and of one account. */
const CACHE_ENTRIES = 64;
const CACHE_ENTRIES_PER_ACCOUNT = 8;
/** Share of the worker's heap past which the cache is emptied, so that it never fills the heap. */
const CACHE_HEAP_SHARE = 0.5;
/** Longest error text sent back. */
const MAX_MESSAGE = 500;

/**
 * RE2 semantics: linear time in the length of the text, no lookaround and no backreferences. Ajv
 * asks for `u` (Unicode) patterns; RE2 always matches code points.
 * @param {string} pattern
 */
function linearRegExp(pattern) {
  const re = RE2JS.compile(pattern);
  return { test: (/** @type {string} */ text) => re.test(text) };
}

/** @type {Record<string, typeof Ajv>} */
const DIALECTS = {
  'https://json-schema.org/draft/2020-12/schema': Ajv2020,
  'https://json-schema.org/draft/2019-09/schema': Ajv2019,
};

/**
 * A validator of its own for every schema: `$id`s and `$ref`s resolve only inside that schema, and
 * nothing one schema registers is seen by another.
 * @param {Record<string, unknown>} schema
 */
function newAjv(schema) {
  const dialect = typeof schema.$schema === 'string' ? DIALECTS[schema.$schema.replace(/#$/, '')] : undefined;
  const Class = dialect ?? Ajv;
  // `inlineRefs: false`: a `$ref` compiles to a call, never to a copy of its target, so a schema that
  // refers to one definition a thousand times compiles to one copy of it, not a thousand.
  return new Class({
    strict: false,
    allErrors: false,
    validateSchema: false,
    validateFormats: false,
    inlineRefs: false,
    logger: false,
    code: { regExp: /** @type {never} */ (linearRegExp) },
  });
}

const checker = new Ajv({ strict: false, validateSchema: false, logger: false });
const isSecure = checker.compile(secureMetaSchema);

/** Compiled schemas, oldest used first. @type {Map<string, { validate: import('ajv').ValidateFunction, account: string }>} */
const cache = new Map();

/** Keeps a compiled schema, within the bounds: per account, in all, and well inside the heap. */
function remember(
  /** @type {string} */ key,
  /** @type {string} */ account,
  /** @type {import('ajv').ValidateFunction} */ validate,
) {
  const stats = getHeapStatistics();
  if (stats.used_heap_size > stats.heap_size_limit * CACHE_HEAP_SHARE) cache.clear();
  const mine = [...cache].filter(([, entry]) => entry.account === account);
  if (mine.length >= CACHE_ENTRIES_PER_ACCOUNT) cache.delete(mine[0][0]);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value);
  cache.set(key, { validate, account });
}

/** @param {string} message */
const clip = (message) => (message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}...` : message);

const ENDLESS = 'json_format cannot be checked: it refers back to itself without end';

/** @param {Error} error */
function compileFailure(error) {
  if (error instanceof RangeError) return ENDLESS;
  if (error.message.startsWith('error parsing regexp')) {
    return `json_format has a pattern this server cannot run (patterns run on a linear-time engine, without lookaround or backreferences): ${clip(error.message)}`;
  }
  return `json_format is not a valid JSON Schema: ${clip(error.message)}`;
}

/**
 * @param {string} key
 * @param {string} account
 * @param {string} text
 * @returns {{ validate: import('ajv').ValidateFunction } | { refused: string }}
 */
function compiled(key, account, text) {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const schema = JSON.parse(text);
  if (!isSecure(schema))
    return { refused: `json_format is not a JSON Schema this server accepts: ${checker.errorsText(isSecure.errors)}` };
  let validate;
  try {
    validate = newAjv(schema).compile(schema);
  } catch (error) {
    return { refused: compileFailure(/** @type {Error} */ (error)) };
  }
  remember(key, account, validate);
  return { validate };
}

/**
 * @param {{ kind: 'compile', account: string, key: string, text: string }
 *   | { kind: 'validate', account: string, key: string, text: string, value: unknown }
 *   | { kind: 'match', pattern: string, text: string }} task
 * @returns {{ ok: true } | { ok: false, refused?: string, mismatch?: string }}
 */
export default function schemaTask(task) {
  if (task.kind === 'match') {
    try {
      return linearRegExp(task.pattern).test(task.text) ? { ok: true } : { ok: false, mismatch: 'does not match' };
    } catch (error) {
      return { ok: false, refused: compileFailure(/** @type {Error} */ (error)) };
    }
  }
  const found = compiled(task.key, task.account, task.text);
  if ('refused' in found) return { ok: false, refused: found.refused };
  if (task.kind === 'compile') return { ok: true };
  let valid;
  try {
    valid = found.validate(task.value);
  } catch (error) {
    // A `$ref` back to the schema itself, with nothing in between that consumes the value.
    if (error instanceof RangeError) return { ok: false, refused: ENDLESS };
    throw error;
  }
  if (valid) return { ok: true };
  const errors = found.validate.errors ?? [];
  return { ok: false, mismatch: clip(errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')) };
}
