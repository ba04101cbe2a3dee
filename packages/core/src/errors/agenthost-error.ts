const marker = 'agenthost.error';
const symbol = Symbol.for(marker);

/**
 * Transport-neutral error codes. Core never speaks HTTP: an adapter maps each code to its own status
 * (the Express adapter keeps that table in one place).
 */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'overloaded'
  | 'storage_unavailable'
  | 'provider_error'
  | 'provider_rate_limited'
  | 'provider_timeout'
  | 'internal'
  /** A background run that was cancelled (its `error`, and its last event's). */
  | 'cancelled'
  /** A background run whose server stopped or vanished before it finished. */
  | 'server_lost';

/** One offending field of a rejected input: a message for people and the path to the field. */
export interface FieldIssue {
  message: string;
  path: (string | number)[];
}

/** Per-field issues, keyed by the top-level field name (`request` when the whole input is wrong). */
export type FieldIssues = Record<string, FieldIssue>;

/**
 * Base class of every error agenthost throws on purpose. Recognise it with
 * {@link AgentHostError.isInstance}, which works across copies of the package (a marker symbol from the
 * global registry, not `instanceof`).
 */
export class AgentHostError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by isInstance, through the global symbol.
  private readonly [symbol] = true;
  /** What went wrong, independent of any transport. */
  readonly code: ErrorCode;
  /** Per-field issues, for input errors. */
  readonly details: FieldIssues | undefined;
  /** For errors that go away by themselves: how many seconds a caller should wait before retrying. */
  readonly retryAfterSeconds: number | undefined;

  constructor({
    code,
    message,
    details,
    cause,
    retryAfterSeconds,
  }: {
    code: ErrorCode;
    message: string;
    details?: FieldIssues;
    cause?: unknown;
    retryAfterSeconds?: number;
  }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AgentHostError';
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** True for any agenthost error, whichever copy of the package made it. */
  static isInstance(error: unknown): error is AgentHostError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[symbol] === true;
  }
}
