import { AgentHostError } from './agenthost-error.js';

/**
 * The store (or the lock service) could not be reached or failed. Nothing was changed by the
 * operation that reports it, unless the message says otherwise. The message is generic; the driver's
 * error is kept as `cause` for the server log.
 */
export class StorageUnavailableError extends AgentHostError {
  constructor({ message = 'Storage is unavailable; retry later', cause }: { message?: string; cause?: unknown } = {}) {
    super({ code: 'storage_unavailable', message, cause, retryAfterSeconds: 2 });
    this.name = 'StorageUnavailableError';
  }
}
