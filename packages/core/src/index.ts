export { AgentService, type AgentListOptions, type AgentServiceOptions, type PageOptions, type RunObservation, type RunOptions } from './agent-service.js';
export { DEFAULT_CONTEXT_WINDOW, estimateTokens } from './context-window.js';
export { ANY_MODEL, describeModels, describeTools, modelsByProvider, type ToolInfo } from './discovery.js';
export { estimatedCost } from './models/cost.js';
export * from './errors/index.js';
export { randomId, type IdGenerator, type IdKind } from './ids.js';
export { API_KEY_SCOPES, type ApiKeyInfo, type ApiKeyRecord, type ApiKeyScope } from './keys/api-key-records.js';
export { ApiKeyService, type ApiKeyIdentity, type ApiKeyServiceOptions } from './keys/api-key-service.js';
export { MIN_SECRET_LENGTH, checkSecret, keyedHash, type KeyedHashPurpose } from './keys/keyed-hash.js';
export type { ApiKeyStore } from './ports/api-key-store.js';
export type { HostSecretStore } from './ports/host-secret-store.js';
export type { IdempotencyRecord, IdempotencyStore } from './ports/idempotency-store.js';
export { memoryIdempotencyStore, type MemoryIdempotencyOptions } from './idempotency/memory-idempotency-store.js';
export { inProcessLocks } from './locks/in-process-locks.js';
export { ECHO_MODEL_NAME, EchoLanguageModel, countEchoTokens } from './models/echo-model.js';
export { catalogEntry, catalogModels, catalogProvider, type CatalogEntry } from './models/catalog.js';
export { modelRegistry } from './models/model-registry.js';
export { openAIModels, type OpenAIModelsOptions } from './models/openai-models.js';
export { PROVIDER_NAME, anthropicProvider, compatibleProvider, googleProvider, openAIProvider, type NamedProvider, type ProviderSettings } from './models/providers.js';
export { combineModels, echoModels, staticModels } from './models/static-models.js';
export type { AgentPage, AgentStore, MessageWindow, SessionPage, SessionRef } from './ports/agent-store.js';
export type { AcquireOptions, Lease, LockProvider } from './ports/lock-provider.js';
export type { ChatModel, ModelInfo, ModelProvider } from './ports/model-provider.js';
export type { ToolProvider } from './ports/tool-provider.js';
export type {
  AgentConfig,
  AgentRecord,
  RunEvent,
  RunMetadata,
  RunResult,
  AgentList,
  SessionInfo,
  SessionList,
  SessionMessage,
  SessionWithMessages,
  TokenUsage,
} from './records.js';
export {
  MAX_INPUT_LENGTH,
  MAX_INSTRUCTION_LENGTH,
  MAX_NAME_LENGTH,
  SESSION_ID_PATTERN,
  createAgentInputSchema,
  runAgentInputSchema,
  updateAgentInputSchema,
  type CreateAgentInput,
  type RunAgentInput,
  type UpdateAgentInput,
} from './schemas.js';
export { jsonDepth } from './json-depth.js';
export { jsonLength } from './json-length.js';
export {
  ANSWER_CHARS_PER_TOKEN,
  MAX_JSON_FORMAT_DEPTH,
  MAX_JSON_FORMAT_LENGTH,
  MAX_JSON_FORMAT_PATTERNS,
  MAX_JSON_FORMAT_PATTERN_LENGTH,
} from './structured-output/json-format.js';
export { SchemaSandbox, sharedSchemaSandbox, type SchemaCheck, type SchemaSandboxOptions } from './structured-output/schema-sandbox.js';
export { MAX_REDACT_LENGTH, REDACTED, TRUNCATED, redactSecrets, type RedactOptions } from './redact-secrets.js';
export { staticTools } from './tools/static-tools.js';
export { ROOT_FIELD, fieldIssues, parseInput } from './validation.js';
