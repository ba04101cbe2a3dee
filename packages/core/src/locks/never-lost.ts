/**
 * The signal of every lease that cannot be lost while its holder lives (in-process locks): it never
 * aborts, so a model call does not listen to it. Shared, since no one outside this module can abort it.
 */
export const NEVER_LOST: AbortSignal = new AbortController().signal;
