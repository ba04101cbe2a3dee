export { AgentHostError, type ErrorCode, type FieldIssue, type FieldIssues } from './agenthost-error.js';
export { ConflictError } from './conflict-error.js';
export { ForbiddenError } from './forbidden-error.js';
export { InvalidInputError } from './invalid-input-error.js';
export { NotFoundError } from './not-found-error.js';
export { ProviderError, type ProviderFailure, type ProviderFailureSummary } from './provider-error.js';
export { StorageUnavailableError } from './storage-unavailable-error.js';
export { UnauthenticatedError } from './unauthenticated-error.js';
