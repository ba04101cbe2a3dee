type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.ceil(v) : 0);

/** The subschema a local `$ref` names (a JSON pointer from the root, an `$id` or an `$anchor`), if any. */
function resolver(root: Node): (ref: string) => unknown {
  const named = new Map<string, Node>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (isNode(v)) {
      if (typeof v.$id === 'string') named.set(v.$id, v);
      if (typeof v.$anchor === 'string') named.set(`#${v.$anchor}`, v);
    }
    stack.push(...Object.values(v));
  }
  return (ref) => {
    if (named.has(ref)) return named.get(ref);
    if (!ref.startsWith('#')) return undefined;
    let at: unknown = root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      let token: string;
      try {
        token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      } catch {
        return undefined; // not a valid pointer: the validator refuses it
      }
      at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[token] : undefined;
    }
    return at;
  };
}

/** What the parts of one measurement share: the schema walk and its capped arithmetic. */
interface Measure {
  demand(s: unknown, depth: number): number;
  /** `a + b`, stopping just past the cap. */
  add(a: number, b: number): number;
  /** `n` times `each`, stopping just past the cap. */
  times(n: number, each: number): number;
}

/** Brackets, then each part, with a comma between two parts. */
const joined = (m: Measure, parts: number, sum: number) => m.add(2 + Math.max(0, parts - 1), sum);

function arrayDemand(m: Measure, s: Node, depth: number): number {
  const n = Math.max(count(s.minItems), 'contains' in s ? Math.max(1, count(s.minContains)) : 0);
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  let sum = 0;
  for (let i = 0; i < Math.min(n, tuple.length); i++) sum = m.add(sum, m.demand(tuple[i], depth + 1));
  return joined(m, n, m.add(sum, m.times(Math.max(0, n - tuple.length), m.demand(rest, depth + 1))));
}

function objectDemand(m: Measure, s: Node, depth: number): number {
  const required = Array.isArray(s.required)
    ? [...new Set(s.required.filter((r): r is string => typeof r === 'string'))]
    : [];
  const properties = isNode(s.properties) ? s.properties : {};
  let sum = 0;
  for (const name of required)
    sum = m.add(sum, JSON.stringify(name).length + 1 + m.demand(properties[name] ?? s.additionalProperties, depth + 1));
  // Each property past the required ones is at least `"":0`.
  const extra = Math.max(0, count(s.minProperties) - required.length);
  return joined(m, required.length + extra, m.add(sum, m.times(extra, 4)));
}

function ofType(m: Measure, type: string, s: Node, depth: number): number {
  switch (type) {
    case 'string':
      return m.add(2, count(s.minLength));
    case 'boolean':
    case 'null':
      return 4;
    case 'array':
      return arrayDemand(m, s, depth);
    case 'object':
      return objectDemand(m, s, depth);
    default:
      return 1;
  }
}

/** What a schema demands by its value keywords (`const`, `enum`) or its `type`, the cheapest type of a list. */
function typed(m: Measure, s: Node, depth: number): number {
  if ('const' in s) return JSON.stringify(s.const)?.length ?? 1;
  if (Array.isArray(s.enum) && s.enum.length) return Math.min(...s.enum.map((v) => JSON.stringify(v)?.length ?? 1));
  const types = Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : [];
  if (types.length === 0) return 1;
  return Math.min(...types.map((type) => ofType(m, String(type), s, depth)));
}

/** What a schema demands itself, with its `$ref`, every `allOf` branch and the cheapest `anyOf`/`oneOf` branch. */
function own(m: Measure, resolve: (ref: string) => unknown, s: Node, depth: number): number {
  let least = typed(m, s, depth);
  if (typeof s.$ref === 'string') least = Math.max(least, m.demand(resolve(s.$ref), depth + 1));
  if (Array.isArray(s.allOf)) for (const branch of s.allOf) least = Math.max(least, m.demand(branch, depth + 1));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = s[keyword];
    if (Array.isArray(branches) && branches.length)
      least = Math.max(least, Math.min(...branches.map((b) => m.demand(b, depth + 1))));
  }
  return least;
}

/**
 * A lower bound on the length, in characters, of the shortest JSON text that a schema accepts, or more
 * than `cap` once it is past `cap` (then the schema asks for more than an answer can hold). Counts
 * what a schema demands (required properties, `minItems`, `minProperties`, `minLength`, nesting), takes
 * the cheapest branch of `anyOf`/`oneOf`/`type` lists and follows local `$ref`s. Anything it cannot
 * tell counts as short, so a schema is never refused for a demand it does not make.
 */
export function answerDemand(schema: unknown, cap: number): number {
  const resolve = isNode(schema) ? resolver(schema) : () => undefined;
  const known = new Map<unknown, number>();
  const m: Measure = {
    add: (a, b) => Math.min(cap + 1, a + b),
    times: (n, each) => (n === 0 ? 0 : Math.min(cap + 1, n * each)),
    demand: (s, depth) => {
      if (s === false) return cap + 1;
      if (!isNode(s) || depth > 64) return 1;
      const seen = known.get(s);
      if (seen !== undefined) return seen;
      // A schema that refers back to itself demands nothing more through that path.
      known.set(s, 1);
      const result = Math.min(cap + 1, own(m, resolve, s, depth));
      known.set(s, result);
      return result;
    },
  };
  return m.demand(schema, 0);
}
