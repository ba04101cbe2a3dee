import { afterEach, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

afterEach(killAll);
const KEY = 'key-metrics-0123456789abcdef';

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

test('/metrics counters move by what the traffic did', async () => {
  const server = await startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    AGENTHOST_METRICS_TOKEN: 'metrics-token-0123456789',
  });
  const origin = server.url.replace(/\/api\/v1$/, '');
  const scrape = async () =>
    (await fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } })).text();
  expect((await fetch(`${origin}/metrics`)).status).toBe(401);

  const before = await scrape();
  const created = [];
  for (let i = 0; i < 2; i++)
    created.push(
      (await api(server.url, KEY, 'POST', '/agents', { name: `A${i}`, instruction: 'Be brief.', model: 'echo' })).body
        .data.agent_id,
    );
  let prompt = 0;
  let completion = 0;
  for (let i = 0; i < 3; i++) {
    const run = await api(server.url, KEY, 'POST', `/agents/${created[0]}/run`, { input: `question ${i}` });
    prompt += run.body.data.metadata.tokens.prompt;
    completion += run.body.data.metadata.tokens.completion;
  }
  await api(server.url, 'wrong-key-0123456789', 'GET', '/agents');
  await api(server.url, KEY, 'GET', '/agents/agt_missing');
  const after = await scrape();

  const delta = (series: string) => value(after, series) - value(before, series);
  expect(delta('agenthost_http_requests_total{method="POST",route="/api/v1/agents",status="200"}')).toBe(2);
  expect(delta('agenthost_http_requests_total{method="POST",route="/api/v1/agents/:agentId/run",status="200"}')).toBe(
    3,
  );
  expect(delta('agenthost_http_requests_total{method="GET",route="unmatched",status="401"}')).toBe(1);
  expect(delta('agenthost_http_requests_total{method="GET",route="/api/v1/agents/:agentId",status="404"}')).toBe(1);
  expect(delta('agenthost_runs_total{model="echo",outcome="ok"}')).toBe(3);
  expect(delta('agenthost_tokens_total{model="echo",kind="prompt"}')).toBe(prompt);
  expect(delta('agenthost_tokens_total{model="echo",kind="completion"}')).toBe(completion);
  expect(delta('agenthost_provider_duration_seconds_count{model="echo"}')).toBe(3);
  expect(
    delta('agenthost_http_request_duration_seconds_count{method="POST",route="/api/v1/agents",status="200"}'),
  ).toBe(2);
  expect(after).toContain('agenthost_storage_errors_total 0');
  expect(after).toContain('process_cpu_user_seconds_total');
}, 30_000);
