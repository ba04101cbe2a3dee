export {
  type AgentListOptions,
  AgentService,
  type AgentServiceOptions,
  type PageOptions,
  type RunObservation,
  type RunOptions,
} from './agent-service.js';
export { agentShape } from './agents/agent-records.js';
export { matchesMetadata } from './agents/metadata-filter.js';
export { DEFAULT_CONTEXT_WINDOW, estimateTokens } from './context-window.js';
export { ANY_MODEL, describeModels, describeTools, modelsByProvider, type ToolInfo } from './discovery.js';
export * from './errors/index.js';
export { type MemoryIdempotencyOptions, memoryIdempotencyStore } from './idempotency/memory-idempotency-store.js';
export { type IdGenerator, type IdKind, randomId, randomToken } from './ids.js';
export { jsonDepth } from './json-depth.js';
export { jsonLength } from './json-length.js';
export { API_KEY_SCOPES, type ApiKeyInfo, type ApiKeyRecord, type ApiKeyScope } from './keys/api-key-records.js';
export { type ApiKeyIdentity, ApiKeyService, type ApiKeyServiceOptions } from './keys/api-key-service.js';
export { checkSecret, type KeyedHashPurpose, keyedHash, MIN_SECRET_LENGTH } from './keys/keyed-hash.js';
export { lazyPackage, type PackageScope } from './lazy-package.js';
export { inProcessLocks } from './locks/in-process-locks.js';
export { type CatalogEntry, catalogEntry, catalogModels, catalogProvider } from './models/catalog.js';
export { estimatedCost } from './models/cost.js';
export { ECHO_MODEL_NAME, EchoLanguageModel } from './models/echo-model.js';
export { countEchoTokens } from './models/echo-tokens.js';
export { modelRegistry } from './models/model-registry.js';
export { type OpenAIModelsOptions, openAIModels } from './models/openai-models.js';
export {
  anthropicProvider,
  compatibleProvider,
  googleProvider,
  type ModelInput,
  MULTIMODAL_INPUT,
  type NamedProvider,
  openAIProvider,
  PROVIDER_NAME,
  type ProviderSettings,
} from './models/providers.js';
export { combineModels, echoModels, staticModels } from './models/static-models.js';
export type {
  AgentPage,
  AgentStore,
  MessageWindow,
  SessionPage,
  SessionRef,
  VersionPage,
} from './ports/agent-store.js';
export type { ApiKeyStore } from './ports/api-key-store.js';
export type { HostSecretStore } from './ports/host-secret-store.js';
export type { IdempotencyRecord, IdempotencyStore } from './ports/idempotency-store.js';
export type { AcquireOptions, Lease, LockProvider } from './ports/lock-provider.js';
export type { ChatModel, ModelInfo, ModelProvider } from './ports/model-provider.js';
export type { RunChange, RunCondition, RunPage, RunSignal, RunStore, StoredRun } from './ports/run-store.js';
export type { ToolProvider } from './ports/tool-provider.js';
export type {
  AgentConfig,
  AgentList,
  AgentRecord,
  AgentVersion,
  AgentVersionList,
  BackgroundRun,
  BackgroundRunEvent,
  FilePart,
  ImagePart,
  MessagePart,
  PendingApproval,
  PendingTurn,
  RunEvent,
  RunEventRecord,
  RunEvents,
  RunFailure,
  RunList,
  RunMetadata,
  RunResult,
  RunStatus,
  SessionInfo,
  SessionList,
  SessionMessage,
  SessionWithMessages,
  TextPart,
  TokenUsage,
  ToolApprovalRequestPart,
  ToolApprovalResponsePart,
  ToolCallPart,
  ToolResultPart,
} from './records.js';
export { MAX_REDACT_LENGTH, REDACTED, type RedactOptions, redactSecrets, TRUNCATED } from './redact-secrets.js';
export {
  type AppendTarget,
  checkEventBatch,
  endsAsRecorded,
  eventsToStore,
  type FinishedRunEnd,
  finishedRunEnd,
} from './runs/background/event-batch.js';
export { InProcessRunStore, type InProcessRunStoreOptions } from './runs/background/in-process-run-store.js';
export { isFinishedRun, UNFINISHED_RUN_STATUSES } from './runs/background/run-states.js';
export {
  type ApprovalResponseInput,
  approvalResponseSchema,
  type CreateAgentInput,
  createAgentInputSchema,
  FILE_MEDIA_TYPES,
  type HistoryMessage,
  IMAGE_MEDIA_TYPES,
  type InputPart,
  inputPartSchema,
  inputPartsSchema,
  MAX_FALLBACK_MODELS,
  MAX_INPUT_FILE_BYTES,
  MAX_INPUT_FILES_BYTES,
  MAX_INPUT_LENGTH,
  MAX_INPUT_PARTS,
  MAX_INSTRUCTION_LENGTH,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_PAIRS,
  MAX_METADATA_VALUE_LENGTH,
  MAX_NAME_LENGTH,
  MAX_TOOLS,
  METADATA_KEY_PATTERN,
  type RunAgentInput,
  runAgentFieldsSchema,
  runAgentInputSchema,
  runHistorySchema,
  runSessionIdSchema,
  runVersionSchema,
  SESSION_ID_PATTERN,
  type UpdateAgentInput,
  updateAgentInputSchema,
  type WithRunRules,
  withRunRules,
} from './schemas.js';
export {
  ANSWER_CHARS_PER_TOKEN,
  MAX_JSON_FORMAT_DEPTH,
  MAX_JSON_FORMAT_LENGTH,
  MAX_JSON_FORMAT_PATTERN_LENGTH,
  MAX_JSON_FORMAT_PATTERNS,
} from './structured-output/json-format.js';
export {
  type SchemaCheck,
  SchemaSandbox,
  type SchemaSandboxOptions,
  sharedSchemaSandbox,
} from './structured-output/schema-sandbox.js';
export { staticTools } from './tools/static-tools.js';
export { fieldIssues, parseInput, ROOT_FIELD } from './validation.js';
