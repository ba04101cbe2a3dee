import {
  type AgentService,
  approvalResponseSchema,
  createAgentInputSchema,
  parseInput,
  runAgentFieldsSchema,
  updateAgentInputSchema,
  withRunRules,
} from '@agenthost/core';
import { z } from 'zod';
import { agentFirst } from './agent-first.js';
import { isObject } from './is-object.js';

/**
 * Request bodies as HTTP clients send them: core's input schemas and the fields only the transport
 * reads. The service never sees those fields: {@link runInput} and {@link updateInput} take them off.
 */

/** The request bodies, each under the name it has in the OpenAPI document's `components.schemas`. */
export const requestComponents = z.registry<{ id: string }>();

/** The `truffle-ai` SDK's names of `model` and `tool`, accepted beside them (see `resolveAliases`). */
const aliasFields = {
  selectedModel: z
    .string({ error: 'selectedModel must be a string' })
    .optional()
    .describe('The same as `model`; when both are given they must be equal'),
  selectedTool: z
    .string({ error: 'selectedTool must be a string or null' })
    .nullish()
    .describe('The same as `tool`; when both are given they must be equal'),
};

/** `POST /agents`: core's input, and the aliases of `model` and `tool`. */
export const createAgentBodySchema = createAgentInputSchema.extend(aliasFields);

const agentChangesSchema = updateAgentInputSchema.extend(aliasFields);

/** `PATCH` and `PUT /agents/{agentId}`: core's changes, which clients sending a whole record put inside `config`. */
export const updateAgentBodySchema = agentChangesSchema.extend({ config: agentChangesSchema.optional() });

/** `background`: the run goes on without the caller, who gets the run object at once (202). */
export const backgroundField = z.boolean({ error: 'background must be true or false' }).nullish();

/**
 * `POST /agents/{agentId}/run`: core's run input, `stream`, which asks for server-sent events, and
 * `background`, which starts a background run.
 */
export const runAgentBodySchema = withRunRules(
  runAgentFieldsSchema.extend({
    stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
    background: backgroundField,
  }),
);

/** `POST /agents/{agentId}/sessions/{sessionId}/approvals/{approvalId}`: core's answer to an approval, and `stream`. */
export const approvalBodySchema = approvalResponseSchema.extend({
  stream: z.boolean({ error: 'stream must be true or false' }).nullish(),
});

requestComponents.add(createAgentBodySchema, { id: 'CreateAgentInput' });
requestComponents.add(updateAgentBodySchema, { id: 'UpdateAgentInput' });
requestComponents.add(runAgentBodySchema, { id: 'RunAgentInput' });
requestComponents.add(approvalBodySchema, { id: 'ApprovalResponseInput' });

/**
 * A PATCH or PUT body as the service takes it: the fields of a `config` object, then the top-level
 * fields over them; a body whose `config` is not an object is passed as it came.
 */
export function updateInput(body: unknown): unknown {
  if (!isObject(body)) return body;
  const { config: nested, ...top } = body;
  return isObject(nested) ? { ...nested, ...top } : body;
}

/** Whether a run or chat body asks for a background run (`"background": true`). */
export function wantsBackground(body: unknown): boolean {
  return isObject(body) && body.background === true;
}

const isFlag = (value: unknown) => value === undefined || value === null || typeof value === 'boolean';

/**
 * A run body as the service takes it: without `stream` and `background`. One of them that is not a
 * boolean is a 400 with every issue of the body, as for any other field; the agent is looked up
 * first, so an unknown agent is a 404 whatever the body.
 */
export function runInput(service: AgentService, accountId: string, agentId: string, body: unknown): Promise<unknown> {
  return agentFirst(service, accountId, agentId, () => {
    if (!isObject(body)) return body;
    const { stream, background, ...rest } = body;
    if (!isFlag(stream) || !isFlag(background)) parseInput(runAgentBodySchema, body);
    return rest;
  });
}

/**
 * An approval body as the service takes it: `{approve, reason?}`, without `stream`. The whole body is
 * checked here (a bad `stream` is reported with the other fields); the agent is looked up first, so
 * an unknown agent is a 404 whatever the body.
 */
export function approvalInput(
  service: AgentService,
  accountId: string,
  agentId: string,
  body: unknown,
): Promise<z.output<typeof approvalResponseSchema>> {
  return agentFirst(service, accountId, agentId, () => {
    const { stream: _stream, ...answer } = parseInput(approvalBodySchema, body);
    return answer;
  });
}
