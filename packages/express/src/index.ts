export { answerClientErrors } from './answer-client-errors.js';
export { type ApiKeyEntry, type AuthContext, anyKey, type KeyResolver, managedKeys, staticKeys } from './auth.js';
export { type ApiResponse, type ErrorEnvelope, failure, type SuccessEnvelope, serialize, success } from './envelope.js';
export { type ApiHandler, type ApiRequest, createHandlers, type SseFrame, streamRun } from './handlers.js';
export { createHealthRouter, type HealthOptions } from './health.js';
export { errorResponse, INTERNAL_ERROR_MESSAGE, STATUS_BY_CODE } from './http-errors.js';
export { type IdempotencyOptions, idempotent } from './idempotency.js';
export { type AgentMetrics, createMetrics, metricsHandler } from './metrics.js';
export { openApiDocument } from './openapi.js';
export { failedAuthLimiter, type Limit, perKeyLimiter, type RateLimitOptions } from './rate-limits.js';
export {
  type AgentRouterOptions,
  createAgentRouter,
  type ErrorLogger,
  MAX_JSON_DEPTH,
  requestDetails,
} from './router.js';
