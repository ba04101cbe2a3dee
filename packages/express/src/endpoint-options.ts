import type { ServerErrorLog } from './error-handler.js';
import type { IdempotencyOptions } from './idempotency.js';

/** What the endpoints need of the router's options: the body limit, idempotency and logging. */
export interface EndpointOptions {
  bodyLimit: string | number;
  idempotency?: IdempotencyOptions;
  logContent?: boolean;
  logServerError: ServerErrorLog;
}
