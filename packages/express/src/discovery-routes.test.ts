import { AgentService, combineModels, echoModels, modelRegistry, openAIProvider, staticTools } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import { tool } from 'ai';
import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { staticKeys } from './auth.js';
import { openApiDocument } from './openapi.js';
import { checkHttpResponse } from './openapi-conformance.js';
import { createAgentRouter } from './router.js';

const KEY = 'key-discovery-0123456789abcdef';
const READ_ONLY = 'key-discovery-runs-only-0123456789';
const document = openApiDocument();

function app() {
  const models = combineModels(
    echoModels(),
    modelRegistry([openAIProvider({ apiKey: 'sk-test', models: ['gpt-5-mini', 'my-fine-tune'] })]),
  );
  const tools = staticTools({
    calculator: {
      calculator: tool({ description: 'Evaluates arithmetic', inputSchema: z.object({ expression: z.string() }) }),
    },
    crm: {
      lookup: tool({ description: 'Finds a customer', inputSchema: z.object({}) }),
      update: tool({ description: 'Updates one', inputSchema: z.object({}) }),
    },
  });
  const service = new AgentService({ store: new MemoryStore(), models, tools });
  const resolveKey = staticKeys([
    { account: 'acme', key: KEY },
    { account: 'acme', key: READ_ONLY, scopes: ['agents:run'] },
  ]);
  return express().use('/api/v1', createAgentRouter(service, { resolveKey }));
}

describe('discovery', () => {
  test('GET /models lists each offered model with its provider, and the catalog’s context window and price where known', async () => {
    const res = await request(app()).get('/api/v1/models').set('x-api-key', KEY);
    expect([res.status, res.body]).toStrictEqual([
      200,
      {
        success: true,
        data: [
          {
            name: 'echo',
            provider: 'agenthost',
            context_window: 8192,
            price: { input_per_mtok: 0, output_per_mtok: 0 },
            input: ['text'],
          },
          {
            name: 'openai/gpt-5-mini',
            provider: 'openai',
            context_window: 400_000,
            price: { input_per_mtok: 0.25, output_per_mtok: 2 },
            input: ['text', 'image', 'file'],
          },
          { name: 'openai/my-fine-tune', provider: 'openai', input: ['text', 'image', 'file'] },
        ],
        status: 200,
      },
    ]);
    checkHttpResponse(document, 'GET', '/api/v1/models', res);
  });

  test('GET /tools lists each integration with its tool’s description, or the names of its tools', async () => {
    const res = await request(app()).get('/api/v1/tools').set('x-api-key', KEY);
    expect([res.status, res.body]).toStrictEqual([
      200,
      {
        success: true,
        data: [
          { name: 'calculator', description: 'Evaluates arithmetic' },
          { name: 'crm', description: 'Tools: lookup, update' },
        ],
        status: 200,
      },
    ]);
    checkHttpResponse(document, 'GET', '/api/v1/tools', res);
  });

  test('both need a key with agents:read, and other methods are 405', async () => {
    const server = app();
    expect((await request(server).get('/api/v1/models')).status).toBe(401);
    const refused = await request(server).get('/api/v1/tools').set('x-api-key', READ_ONLY);
    expect([refused.status, refused.body]).toStrictEqual([
      403,
      { success: false, error: 'This API key lacks the agents:read scope', code: 'forbidden', status: 403 },
    ]);
    const post = await request(server).post('/api/v1/models').set('x-api-key', KEY);
    expect([post.status, post.headers.allow]).toStrictEqual([405, 'GET, HEAD']);
  });
});
