import { AgentHostError, type FieldIssues } from './agenthost-error.js';

/** The caller sent input that fails validation; `details` names each offending field. */
export class InvalidInputError extends AgentHostError {
  constructor({
    message = 'Invalid request format',
    details,
    cause,
  }: { message?: string; details: FieldIssues; cause?: unknown }) {
    super({ code: 'invalid_input', message, details, cause });
    this.name = 'InvalidInputError';
  }
}
