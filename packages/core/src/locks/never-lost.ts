/** The mark of {@link NEVER_LOST}, by `Symbol.for`: every copy of this package knows it. */
const NEVER_LOST_MARK = Symbol.for('agenthost.neverLost');

/**
 * The signal of every lease that cannot be lost while its holder lives (in-process locks): it never
 * aborts, so a model call does not listen to it. Shared, since no one outside this module can abort it.
 */
export const NEVER_LOST: AbortSignal = Object.defineProperty(new AbortController().signal, NEVER_LOST_MARK, {
  value: true,
});

/** Whether `signal` is a {@link NEVER_LOST} (of this or another copy of this package). */
export function neverLost(signal: AbortSignal): boolean {
  return (signal as AbortSignal & { [NEVER_LOST_MARK]?: true })[NEVER_LOST_MARK] === true;
}
