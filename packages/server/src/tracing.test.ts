import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

afterEach(killAll);
const KEY = 'key-tracing-0123456789abcdef';

test('with AGENTHOST_TRACING the server sends its spans over OTLP/HTTP, flushed at shutdown', async () => {
  const received: string[] = [];
  const collector = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const server = await startServer({
      AGENTHOST_API_KEYS: `acme:${KEY}`,
      AGENTHOST_TRACING: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    });
    expect(server.stdout()).toContain(`  traces: OTLP/HTTP to ${endpoint}\n`);
    const agentId = (
      await api(server.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'echo' })
    ).body.data.agent_id;
    const run = await api(server.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'trace this' });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const exported = received.join('\n');
    expect(exported).toContain('"name":"agenthost.run"');
    expect(exported).toContain('"name":"POST /api/v1/agents/:agentId/run"');
    expect(exported).toContain('"name":"chat echo"');
    expect(exported).toMatch(/"key":"gen_ai\.usage\.input_tokens","value":\{"intValue":"?\d+"?\}/);
    expect(exported).toContain(`"stringValue":"${agentId}"`);
    expect(exported).not.toContain('trace this');
    expect(run.status).toBe(200);
  } finally {
    await new Promise((resolve) => collector.close(resolve));
  }
}, 30_000);
