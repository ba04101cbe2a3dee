import { AgentService, echoModels, type ToolProvider } from '@agenthost/core';
import { sequentialIds, testClock } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

// The truffle-ai SDK's names over HTTP: selectedModel and selectedTool beside model and tool, and
// Truffle's tool names for web search. The store keeps agenthost's names only.
const KEY = 'key-aliases-0123456789abcdef';
const NOW = '2026-11-22T10:00:00.000Z';
let store: MemoryStore;
let app: express.Express;

const tools: ToolProvider = {
  listTools: () => ['calculator', 'web_search'],
  tools: (name) => (['calculator', 'web_search'].includes(name) ? {} : undefined),
};

beforeEach(() => {
  store = new MemoryStore();
  const service = new AgentService({
    store,
    models: echoModels(),
    tools,
    now: testClock(NOW),
    generateId: sequentialIds(),
  });
  app = express();
  app.use('/api/v1', createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]) }));
});

const api = () => ({
  post: (path: string, body: object) => request(app).post(`/api/v1${path}`).set('x-api-key', KEY).send(body),
  patch: (path: string, body: object) => request(app).patch(`/api/v1${path}`).set('x-api-key', KEY).send(body),
  put: (path: string, body: object) => request(app).put(`/api/v1${path}`).set('x-api-key', KEY).send(body),
  get: (path: string) => request(app).get(`/api/v1${path}`).set('x-api-key', KEY),
});
const base = { name: 'Scout', instruction: 'Find things.' };

describe('selectedModel and selectedTool', () => {
  test('create takes them for model and tool; answers carry both names; the store keeps one', async () => {
    const created = await api().post('/agents', { ...base, selectedModel: 'echo', selectedTool: 'calculator' });
    expect(created.status).toBe(200);
    const config = {
      agent_id: 'agent_1',
      name: 'Scout',
      instruction: 'Find things.',
      model: 'echo',
      tool: 'calculator',
      tools: ['calculator'],
      require_approval: [],
      component: 'Chat',
      temperature: null,
      top_p: null,
      max_output_tokens: null,
      fallback_models: [],
      metadata: {},
    };
    const answered = { ...config, selectedModel: 'echo', selectedTool: 'calculator' };
    const got = await api().get('/agents/agent_1');
    expect(got.body.data.config).toStrictEqual(answered);
    expect((await api().get('/agents')).body.data.map((a: { config: unknown }) => a.config)).toStrictEqual([answered]);
    expect((await store.getAgent('acme', 'agent_1'))?.config).toStrictEqual(config);
  });

  test("given with model or tool, agenthost's field wins: a record read, changed and sent back whole is taken", async () => {
    const created = await api().post('/agents', { ...base, model: 'echo', selectedModel: 'gpt-4o' });
    expect(created.status).toBe(200);
    const id = created.body.data.agent_id;
    expect((await store.getAgent('acme', id))?.config.model).toBe('echo');
    const { config } = (await api().get(`/agents/${id}`)).body.data;
    const put = await api().put(`/agents/${id}`, { config: { ...config, tool: 'calculator' } });
    expect([put.status, put.body.data.config.tool, put.body.data.config.selectedTool]).toStrictEqual([
      200,
      'calculator',
      'calculator',
    ]);
    const patched = await api().patch(`/agents/${id}`, { tool: null, selectedTool: 'web_search' });
    expect([patched.status, patched.body.data.config.tool]).toStrictEqual([200, null]);
    expect((await store.getAgent('acme', id))?.config.tool).toBeNull();
  });

  test('PATCH and PUT (also nested under config) take them', async () => {
    await api().post('/agents', { ...base, model: 'echo' });
    const patched = await api().patch('/agents/agent_1', { selectedTool: 'calculator' });
    expect([patched.body.data.config.tool, patched.body.data.config.selectedTool]).toStrictEqual([
      'calculator',
      'calculator',
    ]);
    const put = await api().put('/agents/agent_1', { config: { selectedTool: null } });
    expect([put.body.data.config.tool, put.body.data.config.selectedTool]).toStrictEqual([null, null]);
    expect((await store.getAgent('acme', 'agent_1'))?.config.tool).toBeNull();
  });
});

describe("Truffle's tool names", () => {
  test.each(['Tavily Research', 'search', 'SEARCH', ' tavily research '])(
    '%j is stored as web_search',
    async (tool) => {
      const created = await api().post('/agents', { ...base, model: 'echo', tool });
      const got = await api().get(`/agents/${created.body.data.agent_id}`);
      expect([got.body.data.config.tool, got.body.data.config.selectedTool]).toStrictEqual([
        'web_search',
        'web_search',
      ]);
      const changed = await api().patch(`/agents/${created.body.data.agent_id}`, { selectedTool: 'search' });
      expect(changed.body.data.config.tool).toBe('web_search');
    },
  );

  test('a tool the host offers under one of those names is kept, and without web_search nothing is renamed', async () => {
    const own: ToolProvider = {
      listTools: () => ['search', 'calculator'],
      tools: (name) => (['search', 'calculator'].includes(name) ? {} : undefined),
    };
    const service = new AgentService({
      store,
      models: echoModels(),
      tools: own,
      now: testClock(NOW),
      generateId: sequentialIds(),
    });
    app = express();
    app.use('/api/v1', createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]) }));
    const kept = await api().post('/agents', { ...base, model: 'echo', tool: 'search' });
    expect((await store.getAgent('acme', kept.body.data.agent_id))?.config.tool).toBe('search');
    const named = await api().post('/agents', { ...base, model: 'echo', tool: 'Tavily Research' });
    expect([named.status, named.body.details.tool.message]).toStrictEqual([
      400,
      'Unknown tool "Tavily Research". Supported tools: search, calculator',
    ]);
  });

  test('another unknown tool is still refused', async () => {
    const created = await api().post('/agents', { ...base, model: 'echo', tool: 'Tavily' });
    expect([created.status, created.body.details.tool.message]).toStrictEqual([
      400,
      'Unknown tool "Tavily". Supported tools: calculator, web_search',
    ]);
  });
});
