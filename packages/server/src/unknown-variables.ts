import { SERVER_VARIABLES } from './config.js';
import { PROVIDER_VARIABLES } from './providers-config.js';

/** Every variable the server and the keys CLI read. */
export const KNOWN_VARIABLES: readonly string[] = [...SERVER_VARIABLES, ...PROVIDER_VARIABLES];

/** Edit distance between two names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/** The known variable nearest to `name`. */
function nearest(name: string): string {
  let best = KNOWN_VARIABLES[0]!;
  for (const known of KNOWN_VARIABLES) if (distance(name, known) < distance(name, best)) best = known;
  return best;
}

/**
 * One warning per `AGENTHOST_*` variable that agenthost does not read (most likely a typo, which
 * would otherwise leave the setting at its default without a word), naming the nearest known one.
 */
export function unknownVariableWarnings(env: Record<string, string | undefined>): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('AGENTHOST_') && !KNOWN_VARIABLES.includes(name))
    .sort()
    .map((name) => `${name} is not an agenthost setting and is ignored (did you mean ${nearest(name)}?)`);
}
