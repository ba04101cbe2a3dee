import { AgentHostError } from '../errors/agenthost-error.js';

/**
 * Awaits a promise that must reject with an {@link AgentHostError} and returns that error, so a test
 * can assert its `code`, `message` and `details`; anything else fails.
 */
export async function agentHostError(promise: Promise<unknown>): Promise<AgentHostError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AgentHostError.isInstance(error))
    throw new Error(`expected an AgentHostError, got ${error === undefined ? 'a resolved promise' : String(error)}`);
  return error;
}
