export { anyKey, managedKeys, staticKeys, type ApiKeyEntry, type AuthContext, type KeyResolver } from './auth.js';
export { failure, serialize, success, type ApiResponse, type ErrorEnvelope, type SuccessEnvelope } from './envelope.js';
export { createHandlers, streamRun, type ApiHandler, type ApiRequest, type SseFrame } from './handlers.js';
export { INTERNAL_ERROR_MESSAGE, STATUS_BY_CODE, errorResponse } from './http-errors.js';
export { createHealthRouter, type HealthOptions } from './health.js';
export { idempotent, memoryIdempotency, type IdempotencyOptions } from './idempotency.js';
export { openApiDocument } from './openapi.js';
export { failedAuthLimiter, perKeyLimiter, type Limit, type RateLimitOptions } from './rate-limits.js';
export { MAX_JSON_DEPTH, createAgentRouter, requestDetails, type AgentRouterOptions, type ErrorLogger } from './router.js';
