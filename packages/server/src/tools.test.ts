import { fileURLToPath } from 'node:url';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

// A model (the loopback OpenAI fake) that decides to call tools; the server runs them: the built-in
// calculator, and a real MCP server process over stdio named in AGENTHOST_MCP_SERVERS.
const MCP_SERVER = fileURLToPath(new URL('./fixtures/add-mcp-server.mjs', import.meta.url));
const KEY = 'key-tools-0123456789abcdef';
let fake: FakeOpenAIServer;

beforeEach(async () => {
  fake = await startFakeOpenAIServer({
    reply: (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'tool') return { text: `Result: ${last.content}`, usage: { input: 20, output: 3 } };
      if (last.content === 'mcp add')
        return { toolCalls: [{ name: 'add', arguments: { a: 20, b: 22 } }], usage: { input: 10, output: 5 } };
      if (last.content === 'calculate')
        return {
          toolCalls: [{ name: 'calculator', arguments: { expression: '6 * (3 + 4)' } }],
          usage: { input: 10, output: 5 },
        };
      return { text: 'no tool needed', usage: { input: 5, output: 3 } };
    },
  });
});
afterEach(async () => {
  killAll();
  await fake.close();
});

test('agents call the calculator and an MCP server through the standalone server', async () => {
  const server = await startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODELS: 'fake-model',
    AGENTHOST_MCP_SERVERS: JSON.stringify({ echo: { command: process.execPath, args: [MCP_SERVER] } }),
  });
  expect(server.stdout()).toContain('  tools: calculator, datetime, mcp:echo\n');
  const create = (tool: string) =>
    api(server.url, KEY, 'POST', '/agents', { name: 'T', instruction: 'Use your tool.', model: 'fake-model', tool });

  const mcpAgent = (await create('mcp:echo')).body.data.agent_id;
  const viaMcp = await api(server.url, KEY, 'POST', `/agents/${mcpAgent}/run`, { input: 'mcp add' });
  // The model receives the MCP server's content parts as the tool's result.
  expect(viaMcp.body.data).toMatchObject({
    output: 'Result: [{"type":"text","text":"42"}]',
    metadata: { tool_used: 'mcp:echo', tools_used: ['mcp:echo'], tokens: { prompt: 30, completion: 8, total: 38 } },
  });
  expect(fake.requests[0]!.tools).toEqual(expect.arrayContaining(['add', 'fail']));

  const calcAgent = (await create('calculator')).body.data.agent_id;
  const viaCalc = await api(server.url, KEY, 'POST', `/agents/${calcAgent}/run`, { input: 'calculate' });
  expect(viaCalc.body.data).toMatchObject({
    output: 'Result: {"expression":"6 * (3 + 4)","result":42}',
    metadata: { tool_used: 'calculator', tools_used: ['calculator'] },
  });
  expect(fake.requests.at(-2)!.tools).toStrictEqual(['calculator']);

  const unknown = await create('web_search');
  expect([unknown.status, unknown.body.error]).toStrictEqual([
    400,
    'Unknown tool "web_search". Supported tools: calculator, datetime, mcp:echo',
  ]);

  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}, 60_000);

test('an MCP server that cannot start stops the server with a message naming it', async () => {
  const failed = startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    AGENTHOST_MCP_SERVERS: JSON.stringify({ broken: { command: '/nonexistent/mcp-server' } }),
  });
  await expect(failed).rejects.toThrow(/server did not start/);
});
