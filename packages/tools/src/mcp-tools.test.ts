import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { type McpToolProvider, mcpTools } from './mcp-tools.js';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

const ECHO_SERVER = fileURLToPath(new URL('./fixtures/echo-mcp-server.mjs', import.meta.url));
const echo = { command: process.execPath, args: [ECHO_SERVER] };
const TOKEN = 'mcp-token-0123456789';
const usage: GenerateResult['usage'] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** Providers a test opened; closed after it even when it fails. */
const opened: McpToolProvider[] = [];
async function open(...args: Parameters<typeof mcpTools>): Promise<McpToolProvider> {
  const provider = await mcpTools(...args);
  opened.push(provider);
  return provider;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((p) => p.close()));
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error(`expected an Error, got ${String(error)}`);
  return error;
}

/** Runs `tools` through generateText with a model that calls `toolName` once, then answers "done". */
async function callThroughModel(tools: ToolSet, toolName: string, input: unknown) {
  const model = new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });
  const result = await generateText({ model, tools, prompt: 'Use the tool', stopWhen: stepCountIs(3) });
  return {
    text: result.text,
    offered: model.doGenerateCalls[0]!.tools?.map((t) => t.name),
    toolMessage: model.doGenerateCalls[1]?.prompt.at(-1),
  };
}

function toolMessage(toolName: string, output: unknown) {
  return {
    role: 'tool',
    providerOptions: undefined,
    content: [{ type: 'tool-result', toolCallId: 'call-1', toolName, providerOptions: undefined, output }],
  };
}

async function textOf(tools: ToolSet | undefined, name: string, input: unknown): Promise<string> {
  const result = (await tools![name]!.execute!(input, { toolCallId: 'call-1', messages: [], context: {} })) as {
    content: { text: string }[];
  };
  return result.content[0]!.text;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isRunning(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isRunning(pid);
}

describe('mcpTools over stdio (a real server process)', () => {
  test('lists the server as mcp:<name> with its tools', async () => {
    const mcp = await open({ echo });
    expect(mcp.listTools()).toStrictEqual(['mcp:echo']);
    expect(Object.keys(mcp.tools('mcp:echo') ?? {})).toStrictEqual(['add', 'fail', 'pid', 'env']);
    expect([mcp.tools('echo'), mcp.tools('mcp:other')]).toStrictEqual([undefined, undefined]);
  });

  test("a tool called through generateText returns the server's result to the model", async () => {
    const mcp = await open({ echo });
    const run = await callThroughModel(mcp.tools('mcp:echo')!, 'add', { a: 2, b: 3 });
    expect(run).toStrictEqual({
      text: 'done',
      offered: ['add', 'fail', 'pid', 'env'],
      toolMessage: toolMessage('add', { type: 'content', value: [{ type: 'text', text: '5' }] }),
    });
  });

  test('a tool that throws on the server reaches the model as a tool error; the run goes on', async () => {
    const mcp = await open({ echo });
    const run = await callThroughModel(mcp.tools('mcp:echo')!, 'fail', { reason: 'testing' });
    expect(run).toStrictEqual({
      text: 'done',
      offered: ['add', 'fail', 'pid', 'env'],
      toolMessage: toolMessage('fail', {
        type: 'error-text',
        value: 'Error: MCP tool "fail" on server "echo" failed: fail was asked to fail: testing',
      }),
    });
  });

  test("input the server's schema refuses reaches the model as a tool error", async () => {
    const mcp = await open({ echo });
    const run = await callThroughModel(mcp.tools('mcp:echo')!, 'add', { a: 'two', b: 3 });
    expect(run.text).toStrictEqual('done');
    expect(run.toolMessage).toStrictEqual(
      toolMessage('add', {
        type: 'error-text',
        value:
          'Error: MCP tool "add" on server "echo" failed: MCP error -32602: Input validation error: Invalid arguments for tool add: Invalid input: expected number, received string at a',
      }),
    );
  });

  test("env and cwd reach the process; the host's other variables do not", async () => {
    process.env.AGENTHOST_TEST_SECRET = 'host-secret';
    try {
      const cwd = fileURLToPath(new URL('./fixtures', import.meta.url));
      const mcp = await open({ echo: { ...echo, env: { ECHO_GREETING: 'hello' }, cwd } });
      expect(JSON.parse(await textOf(mcp.tools('mcp:echo'), 'env', {}))).toStrictEqual({
        greeting: 'hello',
        secret: null,
        cwd,
      });
    } finally {
      delete process.env.AGENTHOST_TEST_SECRET;
    }
  });

  test('close() ends the child process, and may be called twice', async () => {
    const mcp = await mcpTools({ echo });
    const pid = Number(await textOf(mcp.tools('mcp:echo'), 'pid', {}));
    expect([pid > 0, isRunning(pid)]).toStrictEqual([true, true]);
    await mcp.close();
    await mcp.close();
    expect(await waitUntilGone(pid)).toStrictEqual(true);
  });

  test('after close() the integration is still listed, and a call is a tool error', async () => {
    const mcp = await mcpTools({ echo });
    const tools = mcp.tools('mcp:echo')!;
    await mcp.close();
    expect(mcp.listTools()).toStrictEqual(['mcp:echo']);
    const run = await callThroughModel(tools, 'add', { a: 1, b: 2 });
    expect(run.toolMessage).toStrictEqual(
      toolMessage('add', {
        type: 'error-text',
        value: 'MCPClientError: Attempted to send a request from a closed client',
      }),
    );
  });

  test('several servers are separate integrations, in the order given', async () => {
    const mcp = await open({ first: echo, second: echo });
    expect(mcp.listTools()).toStrictEqual(['mcp:first', 'mcp:second']);
    const [a, b] = await Promise.all([
      textOf(mcp.tools('mcp:first'), 'pid', {}),
      textOf(mcp.tools('mcp:second'), 'pid', {}),
    ]);
    expect(a === b).toStrictEqual(false);
  });

  test('no servers is an empty provider', async () => {
    const mcp = await open({});
    expect([mcp.listTools(), mcp.tools('mcp:x')]).toStrictEqual([[], undefined]);
  });

  test('a command that does not exist rejects with an error naming the server', async () => {
    const error = await rejection(
      mcpTools({ broken: { command: 'agenthost-no-such-command', env: { API_TOKEN: 'env-secret-value' } } }),
    );
    expect(error).toStrictEqual(
      new Error(
        'MCP server "broken" could not be started (command "agenthost-no-such-command"): spawn agenthost-no-such-command ENOENT',
      ),
    );
  });

  test('a process that exits at once rejects with an error naming the server', async () => {
    const error = await rejection(
      mcpTools({ quitter: { command: process.execPath, args: ['-e', 'process.exit(3)'] } }),
    );
    expect(error.message).toMatch(/^MCP server "quitter" could not be started \(command ".+"\): .+/);
  });

  test('a process that never answers is given up after connectTimeoutMs', async () => {
    const started = Date.now();
    const error = await rejection(
      mcpTools(
        { silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
        { connectTimeoutMs: 300 },
      ),
    );
    expect(error).toStrictEqual(
      new Error(
        `MCP server "silent" could not be started (command "${process.execPath}"): MCP client initialization timed out after 300ms`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('when one server fails, the ones already started are ended again', async () => {
    const pidFile = join(await mkdtemp(join(tmpdir(), 'agenthost-mcp-')), 'pid');
    try {
      const error = await rejection(
        mcpTools(
          {
            good: { ...echo, env: { ECHO_PID_FILE: pidFile } },
            silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
          },
          { connectTimeoutMs: 1_000 },
        ),
      );
      expect(error).toStrictEqual(
        new Error(
          `MCP server "silent" could not be started (command "${process.execPath}"): MCP client initialization timed out after 1000ms`,
        ),
      );
      const pid = Number(await readFile(pidFile, 'utf8'));
      expect([pid > 0, await waitUntilGone(pid)]).toStrictEqual([true, true]);
    } finally {
      await rm(dirname(pidFile), { recursive: true, force: true });
    }
  });

  test.each([
    ['bad name', 'Invalid MCP server name "bad name": use 1 to 64 letters, digits, "_" or "-"'],
    ['', 'Invalid MCP server name "": use 1 to 64 letters, digits, "_" or "-"'],
    ['mcp:x', 'Invalid MCP server name "mcp:x": use 1 to 64 letters, digits, "_" or "-"'],
    ['a'.repeat(65), `Invalid MCP server name "${'a'.repeat(65)}": use 1 to 64 letters, digits, "_" or "-"`],
  ])('the server name %j is refused before anything starts', async (name, message) => {
    expect(await rejection(mcpTools({ [name]: echo }))).toStrictEqual(new TypeError(message));
  });

  test('a config with neither or both of command and url, or a bad URL, is refused', async () => {
    expect(await rejection(mcpTools({ x: {} as never }))).toStrictEqual(
      new TypeError('MCP server "x" needs either a "command" (stdio) or a "url" (HTTP), not neither'),
    );
    expect(await rejection(mcpTools({ x: { command: 'node', url: 'http://127.0.0.1' } as never }))).toStrictEqual(
      new TypeError('MCP server "x" needs either a "command" (stdio) or a "url" (HTTP), not both'),
    );
    expect(await rejection(mcpTools({ x: { command: ' ' } }))).toStrictEqual(
      new TypeError('MCP server "x" has an empty command'),
    );
    expect(await rejection(mcpTools({ x: { url: 'file:///etc/passwd?token=abc' } }))).toStrictEqual(
      new TypeError('MCP server "x" needs an http or https URL'),
    );
  });
});

describe('mcpTools over Streamable HTTP (a real server in this process)', () => {
  let server: Server;
  let url: string;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const closedSessions: string[] = [];

  function mcpServer(): McpServer {
    const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
    mcp.registerTool(
      'multiply',
      { description: 'Multiplies two numbers', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a * b) }],
      }),
    );
    mcp.registerTool('explode', { description: 'Always fails' }, async () => {
      throw new Error('exploded on purpose');
    });
    return mcp;
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        // Echoes what it got, as careless servers do, so the test can check that it is redacted.
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: `bad credentials: ${req.headers.authorization ?? 'none'}` }));
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (existing) {
        void existing.handleRequest(req, res);
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => {
          sessions.delete(id);
          closedSessions.push(id);
        },
      });
      void mcpServer()
        .connect(transport)
        .then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    await Promise.all([...sessions.values()].map((t) => t.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('lists the server as mcp:<name> and calls its tools through generateText', async () => {
    const mcp = await open({ remote: { url, headers: { Authorization: `Bearer ${TOKEN}` } } });
    expect(mcp.listTools()).toStrictEqual(['mcp:remote']);
    const run = await callThroughModel(mcp.tools('mcp:remote')!, 'multiply', { a: 6, b: 7 });
    expect(run).toStrictEqual({
      text: 'done',
      offered: ['multiply', 'explode'],
      toolMessage: toolMessage('multiply', { type: 'content', value: [{ type: 'text', text: '42' }] }),
    });
  });

  test('a tool that throws on the server reaches the model as a tool error', async () => {
    const mcp = await open({ remote: { url, headers: { Authorization: `Bearer ${TOKEN}` } } });
    const run = await callThroughModel(mcp.tools('mcp:remote')!, 'explode', {});
    expect(run.toolMessage).toStrictEqual(
      toolMessage('explode', {
        type: 'error-text',
        value: 'Error: MCP tool "explode" on server "remote" failed: exploded on purpose',
      }),
    );
  });

  test('close() ends the HTTP session', async () => {
    const mcp = await mcpTools({ remote: { url, headers: { Authorization: `Bearer ${TOKEN}` } } });
    const before = closedSessions.length;
    await mcp.close();
    expect(closedSessions.length - before).toStrictEqual(1);
  });

  test('a refused token rejects with an error naming the server and the status, without the token', async () => {
    const wrong = 'wrong-token-9876543210';
    const error = await rejection(mcpTools({ remote: { url, headers: { Authorization: `Bearer ${wrong}` } } }));
    expect(error).toStrictEqual(
      new Error(
        'MCP server "remote" could not be connected: MCP HTTP Transport Error: POSTing to endpoint (HTTP 401): {"error":"bad credentials: [redacted]"}',
      ),
    );
    expect(`${error.message} ${error.stack}`).not.toContain(wrong);
  });

  test('a server that is not listening rejects with an error naming the server', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await rejection(mcpTools({ gone: { url: `http://127.0.0.1:${port}/mcp?key=query-secret-123` } }));
    expect(error.message).toMatch(/^MCP server "gone" could not be connected: .*ECONNREFUSED/);
    expect(error.message).not.toContain('query-secret-123');
  });

  test('stdio and HTTP servers together', async () => {
    const mcp = await open({ echo, remote: { url, headers: { Authorization: `Bearer ${TOKEN}` } } });
    expect(mcp.listTools()).toStrictEqual(['mcp:echo', 'mcp:remote']);
    expect([
      await textOf(mcp.tools('mcp:echo'), 'add', { a: 1, b: 2 }),
      await textOf(mcp.tools('mcp:remote'), 'multiply', { a: 3, b: 4 }),
    ]).toStrictEqual(['3', '12']);
  });
});
