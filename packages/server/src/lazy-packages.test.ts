import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { api, killAll, runServer, startServer } from './test-process.js';

const RECORD_LOADS = fileURLToPath(new URL('./fixtures/record-loads.mjs', import.meta.url));
const MOUNTED = fileURLToPath(new URL('./fixtures/mounted-router.mjs', import.meta.url));

/** Packages loaded only when a feature that needs them is used. */
const PROVIDERS = ['@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/google', '@ai-sdk/openai-compatible'];
const CATALOG = ['@pydantic/genai-prices'];
const WORKER_POOL = ['piscina'];
const METRICS = ['prom-client'];
const RATE_LIMITS = ['express-rate-limit'];
const TRACING = ['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@ai-sdk/otel'];
const MCP = ['@ai-sdk/mcp'];

/** A file that the recording child writes each loaded module's URL to when it exits. */
function loadLog(): string {
  return join(mkdtempSync(join(tmpdir(), 'agenthost-loads-')), 'loads.txt');
}

/** The packages among `names` whose files the child loaded. */
function loadedOf(log: string, names: readonly string[]): string[] {
  const urls = readFileSync(log, 'utf8');
  return names.filter((name) => urls.includes(`/node_modules/${name}/`));
}

/** Runs the mounted-router fixture with `steps`, and resolves with its output and exit code. */
function runMounted(log: string, steps: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', RECORD_LOADS, MOUNTED, ...steps], {
    env: { PATH: process.env.PATH ?? '', AGENTHOST_TEST_LOADS: log },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

afterEach(killAll);

describe('packages loaded on first use', () => {
  it('a mounted router over its own model loads no provider package, catalog, worker pool, metrics or rate limiter', async () => {
    const log = loadLog();
    const result = await runMounted(log, []);
    expect(result).toEqual({ code: 0, out: 'ok run 200 hello\n', err: '' });
    expect(loadedOf(log, [...PROVIDERS, ...CATALOG, ...WORKER_POOL, ...METRICS, ...RATE_LIMITS])).toEqual([]);
  }, 60_000);

  it('loads each package when its feature is first used, and the feature works, with no warning', async () => {
    const log = loadLog();
    const result = await runMounted(log, ['providers', 'metrics', 'limits', 'sandbox']);
    expect(result).toEqual({
      code: 0,
      out: 'ok run 200 hello\nok providers\nok metrics\nok limits\nok sandbox\n',
      err: '',
    });
    const used = [...PROVIDERS, ...CATALOG, ...METRICS, ...RATE_LIMITS, ...WORKER_POOL];
    expect(loadedOf(log, used)).toEqual(used);
    // The ES module build of a package that has both, as `import` would load it: an application
    // importing the package shares its instance.
    const urls = readFileSync(log, 'utf8');
    expect(urls).toMatch(/\/node_modules\/@pydantic\/genai-prices\/dist\/index\.js\n/);
    expect(urls).not.toContain('/node_modules/@pydantic/genai-prices/dist/index.cjs');
    expect(urls).toMatch(/\/node_modules\/express-rate-limit\/dist\/index\.mjs\n/);
  }, 60_000);

  it('the standalone server without tracing, MCP servers or provider keys loads none of their packages', async () => {
    const log = loadLog();
    const key = 'k'.repeat(40);
    const server = await startServer({
      AGENTHOST_API_KEYS: `acct:${key}`,
      AGENTHOST_TEST_LOADS: log,
      NODE_OPTIONS: `--import ${RECORD_LOADS}`,
    });
    const created = await api(server.url, key, 'POST', '/agents', {
      name: 'a',
      instruction: 'Be brief.',
      model: 'echo',
    });
    const run = await api(server.url, key, 'POST', `/agents/${created.body.data.agent_id}/run`, { input: 'hi' });
    expect(run.body.data.output).toBe('Echo: hi');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(loadedOf(log, [...PROVIDERS, ...CATALOG, ...WORKER_POOL, ...TRACING, ...MCP])).toEqual([]);
    // Metrics and rate limits are on by default.
    expect(loadedOf(log, [...METRICS, ...RATE_LIMITS])).toEqual([...METRICS, ...RATE_LIMITS]);
  }, 60_000);

  it('with tracing on, the standalone server loads the OpenTelemetry SDK and starts', async () => {
    const log = loadLog();
    const server = runServer({
      AGENTHOST_API_KEYS: `acct:${'k'.repeat(40)}`,
      AGENTHOST_TRACING: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      AGENTHOST_TEST_LOADS: log,
      NODE_OPTIONS: `--import ${RECORD_LOADS}`,
    });
    const deadline = Date.now() + 60_000;
    while (!server.stdout().includes('listening on') && server.child.exitCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.stdout()).toContain('listening on');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(loadedOf(log, TRACING)).toEqual(TRACING);
  }, 60_000);
});
