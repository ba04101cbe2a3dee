import { existsSync } from 'node:fs';
import { startFakeOpenAIServer } from '@agenthost/core/test';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { api, killAll, BIN as MAIN, runServer as run, startServer as start } from './test-process.js';

// These tests run the built server as users do (`pnpm test` builds first).
const KEY_A = 'key-alpha-0123456789abcdef';
const KEY_B = 'key-beta-0123456789abcdef';

afterEach(killAll);

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "pnpm build" first (pnpm test does)`);
});

describe('the standalone server', () => {
  test('prints its banner and keeps two accounts apart', async () => {
    const server = await start({ AGENTHOST_API_KEYS: `alpha:${KEY_A},beta:${KEY_B}` });
    expect(server.stdout()).toBe(
      `agenthost listening on ${server.url}\n  models (name them provider/model; all of them: GET /api/v1/models):\n    agenthost: echo\n  tools: calculator, datetime\n  reference: ${server.url.replace(/\/api\/v1$/, '')}/docs (OpenAPI at ${server.url}/openapi.json)\n  playground: ${server.url.replace(/\/api\/v1$/, '')}/playground/\n  metrics: ${server.url.replace(/\/api\/v1$/, '')}/metrics\n  store: memory (agents and conversations last until the server stops)\n  keys: 2 configured, 0 issued (agenthost keys create --account <name>)\n`,
    );
    // Each account sees only its own agents (the whole API is checked by the conformance test).
    const made = await api(server.url, KEY_A, 'POST', '/agents', { name: 'A', instruction: 'I', model: 'echo' });
    expect(made.status).toBe(200);
    expect(
      (await api(server.url, KEY_A, 'GET', '/agents')).body.data.map((a: { agent_id: string }) => a.agent_id),
    ).toStrictEqual([made.body.data.agent_id]);
    expect(await api(server.url, KEY_B, 'GET', '/agents')).toStrictEqual({
      status: 200,
      body: { success: true, data: [], status: 200 },
    });
  });

  test('without configured keys it makes one development key, prints it once, and the key works', async () => {
    const server = await start({});
    const match = /development API key for account "default": (ah_dev_[A-Za-z0-9_-]{32})\n/.exec(server.stdout());
    expect(match).not.toBeNull();
    const key = match![1]!;
    expect(server.stdout().split(key)).toHaveLength(2);
    const created = await api(server.url, key, 'POST', '/agents', {
      name: 'Dev',
      instruction: 'Be brief.',
      model: 'echo',
    });
    expect(created.status).toBe(200);
    const run = await api(server.url, key, 'POST', `/agents/${created.body.data.agent_id}/run`, { input: 'ping' });
    expect([run.status, run.body.data.output]).toStrictEqual([200, 'Echo: ping']);
  });

  test('runs agents on an OpenAI-compatible server named by OPENAI_BASE_URL', async () => {
    const fake = await startFakeOpenAIServer();
    try {
      const server = await start({
        AGENTHOST_API_KEYS: `alpha:${KEY_A}`,
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_MODELS: 'llama3.2',
      });
      expect(server.stdout()).toContain('    agenthost: echo\n    openai: llama3.2\n');
      const created = await api(server.url, KEY_A, 'POST', '/agents', {
        name: 'Local',
        instruction: 'Answer in one line.',
        model: 'llama3.2',
      });
      const run = await api(server.url, KEY_A, 'POST', `/agents/${created.body.data.agent_id}/run`, {
        input: 'Hi there',
      });
      // The fake counts words plus one per message: (1+4) + (1+2) = 8 in; 'Reply to: Hi there' is 4 out.
      expect(run).toStrictEqual({
        status: 200,
        body: {
          success: true,
          data: {
            output: 'Reply to: Hi there',
            session_id: run.body.data.session_id,
            status: 'completed',
            pending_approvals: [],
            metadata: {
              model: 'llama3.2',
              agent_version: 1,
              tool_used: null,
              tools_used: [],
              tokens: { prompt: 8, completion: 4, total: 12 },
              omitted_messages: 0,
            },
          },
          status: 200,
        },
      });
      expect(fake.requests.map((r) => [r.api, r.model, r.messages])).toStrictEqual([
        [
          'chat',
          'llama3.2',
          [
            { role: 'system', content: 'Answer in one line.' },
            { role: 'user', content: 'Hi there' },
          ],
        ],
      ]);
    } finally {
      await fake.close();
    }
  });

  test('SIGTERM stops it cleanly with exit code 0', async () => {
    const server = await start({ AGENTHOST_API_KEYS: `alpha:${KEY_A}` });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain(
      'agenthost: SIGTERM received, finishing in-flight requests and background runs (up to 25000 ms)\nagenthost: stopped\n',
    );
    await expect(fetch(`${server.url}/agents`)).rejects.toThrow();
  });

  test('a bad setting exits 2 with a clear message and without echoing a key or the secret', async () => {
    const r = run({
      PORT: 'eighty',
      AGENTHOST_API_KEYS: 'alpha:tooshort',
      AGENTHOST_SECRET: 'secret-of-31-characters-exactly',
    });
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toBe(
      'agenthost: invalid configuration:\n  - PORT: must be a number\n  - AGENTHOST_API_KEYS: entry 1 (account "alpha"): the key must be at least 16 characters\n  - AGENTHOST_SECRET: must be at least 32 characters\nRun with --help for the list of settings.\n',
    );
    expect(r.stdout()).toBe('');
  });

  test('--help lists the settings', async () => {
    const r = run({}, ['--help']);
    expect(await r.exited).toBe(0);
    for (const name of [
      'PORT',
      'HOST',
      'AGENTHOST_API_KEYS',
      'AGENTHOST_BODY_LIMIT',
      'AGENTHOST_STORE',
      'AGENTHOST_SECRET',
      'AGENTHOST_RUN_WAIT_MS',
      'AGENTHOST_RUNS_MAX_IN_FLIGHT',
      'AGENTHOST_RUN_EVENTS_RETENTION_S',
      'AGENTHOST_RUN_RECORDS_RETENTION_S',
      'AGENTHOST_RUN_LEASE_MS',
      'AGENTHOST_RUN_EVENT_READERS',
      'AGENTHOST_LOCK_LEASE_MS',
      'OPENAI_API',
      'OPENAI_MODELS',
      'AGENTHOST_PROVIDERS',
    ]) {
      expect(r.stdout()).toContain(`  ${name} `);
    }
    for (const names of [
      'OPENAI_API_KEY, OPENAI_BASE_URL',
      'ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL',
      'GOOGLE_GENERATIVE_AI_API_KEY, GOOGLE_GENERATIVE_AI_BASE_URL',
    ])
      expect(r.stdout()).toContain(`  ${names}`);
  });
});
