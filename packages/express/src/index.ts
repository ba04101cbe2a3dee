export { answerClientErrors } from './answer-client-errors.js';
export { type ApiKeyEntry, type AuthContext, anyKey, type KeyResolver, managedKeys, staticKeys } from './auth.js';
export { chainMiddleware } from './chain.js';
export {
  type ApiResponse,
  type ErrorEnvelope,
  failure,
  type RequestLog,
  refusal,
  type SuccessEnvelope,
  serialize,
  success,
} from './envelope.js';
export { type AdapterErrorCode, codeForStatus, ERROR_CODES, type HttpErrorCode } from './error-codes.js';
export { type ApiHandler, type ApiRequest, createHandlers, type SseFrame, streamRun } from './handlers.js';
export { createHealthRouter, HEALTH_PATHS, type HealthOptions } from './health.js';
export { createAgentBodySchema, runAgentBodySchema, updateAgentBodySchema } from './http-bodies.js';
export { errorResponse, INTERNAL_ERROR_MESSAGE, STATUS_BY_CODE } from './http-errors.js';
export { type IdempotencyOptions, idempotent } from './idempotency.js';
export { type AgentMetrics, type BackgroundRunCounts, createMetrics, metricsHandler } from './metrics.js';
export { openApiDocument } from './openapi.js';
export { failedAuthLimiter, type Limit, perKeyLimiter, type RateLimitOptions } from './rate-limits.js';
export { isSafeRequestId, requestIdOf } from './request-context.js';
export {
  type AgentRouterOptions,
  createAgentRouter,
  type ErrorLogger,
  MAX_JSON_DEPTH,
  requestDetails,
} from './router.js';
export { ROUTES, type RouteDefinition, type RouteHandlerName, type RouteMethod } from './routes.js';
export type { ChatMessageMetadata, ChatUIMessage } from './ui-message-stream.js';
