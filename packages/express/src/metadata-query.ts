import { InvalidInputError, MAX_METADATA_PAIRS } from '@agenthost/core';
import { isObject } from './is-object.js';

/** A query key that filters on metadata: `metadata[<key>]`. */
const METADATA_KEY = /^metadata\[([^[\]]*)\]$/;

function badFilter(message: string): InvalidInputError {
  return new InvalidInputError({ details: { metadata: { message, path: ['metadata'] } } });
}

/**
 * The metadata filter of a list query (`?metadata[team]=support&metadata[tier]=gold`), from the
 * query's flat `metadata[<key>]` keys (Express's default parser), or a `metadata` object when the
 * host app parses queries into nested objects. `undefined` when the query has none. The service
 * checks the keys and values themselves.
 * @throws InvalidInputError naming `metadata` for a key given twice, a value that is not one
 *   string, a malformed `metadata...` key, or more pairs than an agent may have.
 */
export function metadataQuery(query: Record<string, unknown>): Record<string, string> | undefined {
  const pairs: [string, unknown][] = [];
  for (const [name, value] of Object.entries(query)) {
    const match = METADATA_KEY.exec(name);
    if (match) pairs.push([match[1]!, value]);
    else if (name === 'metadata' && isObject(value)) pairs.push(...Object.entries(value));
    else if (name.startsWith('metadata'))
      throw badFilter('Filter on metadata as metadata[<key>]=<value>, one value per key');
    if (pairs.length > MAX_METADATA_PAIRS)
      throw badFilter(`metadata may filter on at most ${MAX_METADATA_PAIRS} pairs`);
  }
  if (pairs.length === 0) return undefined;
  const filter: Record<string, string> = Object.create(null);
  for (const [key, value] of pairs) {
    if (typeof value !== 'string') throw badFilter(`metadata[${key}] must be given once, as one value`);
    if (Object.hasOwn(filter, key)) throw badFilter(`metadata[${key}] must be given once`);
    filter[key] = value;
  }
  return { ...filter };
}
