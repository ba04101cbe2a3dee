import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, openAIModels, staticTools } from '@agenthost/core';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { tool } from 'ai';
import express from 'express';
import { TruffleAI } from 'truffle-ai';
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

// The hosted service's published SDK (truffle-ai 2.0.1), unchanged, against the router mounted at
// /api/v1 on a listening server, with the real OpenAI provider talking to a loopback fake.
const KEY = 'key-truffle-0123456789abcdef';
let fake: FakeOpenAIServer;
let server: Server;
let client: TruffleAI;

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  const models = openAIModels({ apiKey: 'test', baseURL: fake.baseURL, models: ['gpt-4o-mini'] });
  const tools = staticTools({
    web_search: {
      search: tool({ description: 'Searches', inputSchema: z.object({ q: z.string() }), execute: async () => [] }),
    },
  });
  const service = new AgentService({ store: new MemoryStore(), models, tools, maxRetries: 0 });
  const router = createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]) });
  const app = express();
  app.use('/api/v1', router, router.errorHandler);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  client = new TruffleAI(KEY, { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  // The SDK logs every answer of deployAgent and loadAgent to the console.
  vi.spyOn(console, 'log').mockImplementation(() => {});
});

const deploy = () =>
  client.deployAgent({
    name: 'Researcher',
    instruction: 'Answer briefly.',
    model: 'gpt-4o-mini',
    tool: 'Tavily Research',
  });

describe('the truffle-ai SDK', () => {
  test('loadAgent returns the model and tool the agent was deployed with', async () => {
    const deployed = await deploy();
    const loaded = await client.loadAgent(deployed.getId());
    expect(loaded.getConfig()).toMatchObject({
      name: 'Researcher',
      instruction: 'Answer briefly.',
      model: 'gpt-4o-mini',
      tool: 'web_search',
      selectedModel: 'gpt-4o-mini',
      selectedTool: 'web_search',
    });
  });

  test('chat().send returns the reply, and a second send continues the conversation', async () => {
    const agent = await client.loadAgent((await deploy()).getId());
    const chat = agent.chat();
    expect(await chat.send('My name is Ada.')).toBe('Reply to: My name is Ada.');
    expect(await chat.send('What is my name?')).toBe('Reply to: What is my name?');
    // The provider saw the earlier turn before the new message.
    expect(fake.requests.at(-1)!.messages).toStrictEqual([
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Reply to: My name is Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(chat.getHistory()).toHaveLength(4);
  });

  test('agent.run answers with the envelope of a run', async () => {
    const agent = await deploy();
    const result = await agent.run('Hello');
    expect(result).toStrictEqual({
      success: true,
      data: {
        output: 'Reply to: Hello',
        session_id: expect.any(String),
        status: 'completed',
        pending_approvals: [],
        metadata: expect.objectContaining({ model: 'gpt-4o-mini', tool_used: null, tools_used: [] }),
      },
      status: 200,
    });
  });

  test('a wrong key is the SDK’s AuthenticationError with the server’s message', async () => {
    const stranger = new TruffleAI('wrong-key-0123456789', {
      baseUrl: (client as unknown as { baseUrl: string }).baseUrl,
    });
    await expect(stranger.loadAgent('agt_1')).rejects.toMatchObject({
      name: 'AuthenticationError',
      message: 'Invalid API key provided',
      statusCode: 401,
    });
  });
});
