import { InvalidInputError } from '../errors/invalid-input-error.js';
import type { SchemaSandbox } from '../structured-output/schema-sandbox.js';

type Schema = Record<string, unknown>;

/** A string the answer needs, and the constraints its text must meet. */
interface Slot {
  path: string;
  schema: Schema;
}

/** Most values the echo model builds for one answer, whatever the schema asks. */
const MAX_NODES = 2_000;
const MAX_DEPTH = 32;
/** Where a string goes, until the strings are known. */
class Hole {
  constructor(readonly index: number) {}
}

class TooBig extends Error {}

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);
const whole = (v: unknown, fallback: number) =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback;

function numberFor(s: Schema, integer: boolean): number {
  let n =
    typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0;
  if (typeof s.maximum === 'number' && n > s.maximum) n = s.maximum;
  return integer ? Math.ceil(n) : n;
}

/**
 * The skeleton of a small value that satisfies a schema of the common shapes, with a marker where a
 * string goes. With `minimal`, objects get only their required properties.
 */
function skeleton(root: unknown, minimal: boolean): { value: unknown; slots: Slot[] } {
  const slots: Slot[] = [];
  let nodes = 0;
  const build = (s: unknown, path: string, depth: number): unknown => {
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) throw new TooBig();
    if (!isSchema(s)) return null;
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
    const alternative = (Array.isArray(s.anyOf) && s.anyOf[0]) || (Array.isArray(s.oneOf) && s.oneOf[0]);
    if (alternative) return build(alternative, path, depth + 1);
    switch (Array.isArray(s.type) ? s.type[0] : s.type) {
      case 'string':
        slots.push({ path: path || '/', schema: s });
        return new Hole(slots.length - 1);
      case 'number':
        return numberFor(s, false);
      case 'integer':
        return numberFor(s, true);
      case 'boolean':
        return false;
      case 'null':
        return null;
      case 'array':
        return Array.from({ length: whole(s.minItems, 0) }, (_, i) => build(s.items, `${path}/${i}`, depth + 1));
      default: {
        const properties = isSchema(s.properties) ? s.properties : {};
        const required = new Set(Array.isArray(s.required) ? s.required : []);
        const names = Object.keys(properties).filter((name) => !minimal || required.has(name));
        return Object.fromEntries(names.map((name) => [name, build(properties[name], `${path}/${name}`, depth + 1)]));
      }
    }
  };
  return { value: build(root, '', 0), slots };
}

function cannot(message: string): InvalidInputError {
  return new InvalidInputError({
    details: {
      json_format: { message: `The echo model answers with the input, which ${message}`, path: ['json_format'] },
    },
  });
}

/** Answers "does this text match this pattern?" once per pair, however many strings ask. */
function patternMatcher(
  sandbox: SchemaSandbox,
  accountId: string,
): (pattern: string, text: string) => Promise<boolean> {
  const asked = new Map<string, Promise<boolean>>();
  return (pattern, text) => {
    const key = JSON.stringify([pattern, text]);
    const answer = asked.get(key) ?? sandbox.matches(accountId, pattern, text);
    asked.set(key, answer);
    return answer;
  };
}

/** The text of one string slot: the message, cut to what the budget and `maxLength` allow. */
async function fill(slot: Slot, message: string, matches: ReturnType<typeof patternMatcher>): Promise<string> {
  const { schema, path } = slot;
  const chars = Array.from(message);
  const text = chars.slice(0, whole(schema.maxLength, chars.length)).join('');
  if (Array.from(text).length < whole(schema.minLength, 0)) throw cannot(`is shorter than the minLength of ${path}`);
  if (typeof schema.pattern === 'string' && !(await matches(schema.pattern, text)))
    throw cannot(`does not match the pattern of ${path}`);
  return text;
}

/**
 * A small JSON value that satisfies a JSON Schema of the common shapes, with the message in every
 * string, within `maxChars` of JSON text. Optional properties are left out when the whole value
 * would be too big; strings are cut to fit.
 * @throws InvalidInputError when the message cannot fill a string (too short, or not matching its
 *   pattern, checked on the linear-time engine) or the smallest value is still too big.
 */
export async function echoJson(
  schema: unknown,
  message: string,
  maxChars: number,
  checks: { sandbox: SchemaSandbox; accountId: string },
): Promise<string> {
  let built: ReturnType<typeof skeleton> | undefined;
  for (const minimal of [false, true]) {
    try {
      built = skeleton(schema, minimal);
    } catch (error) {
      if (!(error instanceof TooBig)) throw error;
      continue;
    }
    if (render(built.value, () => '').length <= maxChars) break;
    built = undefined;
  }
  if (!built) throw cannot('cannot fill json_format: its smallest value is more than an answer may hold');
  const { value, slots } = built;
  const room = Math.max(0, maxChars - render(value, () => '').length);
  // JSON escapes can double a character; keep every string within its share of the room.
  const share = slots.length ? Math.floor(room / slots.length / 2) : 0;
  const cut = Array.from(message).slice(0, share).join('');
  const matches = patternMatcher(checks.sandbox, checks.accountId);
  const texts = await Promise.all(slots.map((slot) => fill(slot, cut, matches)));
  return render(value, (index) => texts[index] ?? '');
}

function render(value: unknown, text: (index: number) => string): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Hole ? text(v.index) : v));
}
