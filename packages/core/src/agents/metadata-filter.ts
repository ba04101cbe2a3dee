import type { AgentRecord } from '../records.js';
import { MAX_METADATA_PAIRS, MAX_METADATA_VALUE_LENGTH, METADATA_KEY_PATTERN } from '../schemas.js';
import { invalidField } from '../validation.js';

/**
 * A caller's metadata filter, checked: `undefined` for none (absent or empty).
 * @throws InvalidInputError naming `metadata` for anything but at most 16 pairs of a valid key and a string value.
 */
export function metadataFilter(filter: unknown): Record<string, string> | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    throw invalidField('metadata', 'metadata must be an object of string values');
  const pairs = Object.entries(filter);
  if (pairs.length > MAX_METADATA_PAIRS)
    throw invalidField('metadata', `metadata may filter on at most ${MAX_METADATA_PAIRS} pairs`);
  for (const [key, value] of pairs) {
    if (!METADATA_KEY_PATTERN.test(key))
      throw invalidField('metadata', 'metadata keys are 1 to 64 letters, digits, "_", "-", "." or ":"');
    if (typeof value !== 'string' || value.length > MAX_METADATA_VALUE_LENGTH)
      throw invalidField('metadata', `metadata values are strings of at most ${MAX_METADATA_VALUE_LENGTH} characters`);
  }
  return pairs.length ? Object.fromEntries(pairs) : undefined;
}

/**
 * Whether a stored agent's metadata has every pair of `filter`. A record stored before agents had
 * metadata has none (and matches only an empty filter). For stores implementing the metadata filter.
 */
export function matchesMetadata(agent: AgentRecord, filter: Readonly<Record<string, string>>): boolean {
  const metadata: Record<string, string> = agent.metadata ?? agent.config?.metadata ?? {};
  return Object.entries(filter).every(([key, value]) => Object.hasOwn(metadata, key) && metadata[key] === value);
}
