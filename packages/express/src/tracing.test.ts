import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import express from 'express';
import request from 'supertest';
import { afterAll, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
afterAll(() => provider.shutdown());

const KEY = 'key-trace-0123456789abcdef';

test("a run's span carries model and tokens, under the request's span, over the AI SDK's model-call spans", async () => {
  const service = new AgentService({ store: new MemoryStore(), models: echoModels(), telemetry: { enabled: true } });
  const app = express().use('/api/v1', createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]), tracing: true }));
  const agentId = (await request(app).post('/api/v1/agents').set('x-api-key', KEY).send({ name: 'A', instruction: 'Be brief.', model: 'echo' })).body.data.agent_id;
  exporter.reset();
  const res = await request(app).post(`/api/v1/agents/${agentId}/run`).set('x-api-key', KEY).set('x-request-id', 'req-traced').send({ input: 'trace me', session_id: 's1' });
  expect(res.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 50));

  const spans = exporter.getFinishedSpans();
  const http = spans.find((s) => s.name === 'POST /api/v1/agents/:agentId/run');
  const run = spans.find((s) => s.name === 'agenthost.run');
  const modelCall = spans.find((s) => s.name === 'ai.generateText.doGenerate');
  expect(http?.attributes).toMatchObject({ 'http.route': '/api/v1/agents/:agentId/run', 'http.response.status_code': 200, 'agenthost.request_id': 'req-traced', 'agenthost.account': 'acme' });
  expect(run?.attributes).toStrictEqual({
    'agenthost.agent_id': agentId,
    'agenthost.session_id': 's1',
    'gen_ai.request.model': 'echo',
    'gen_ai.usage.input_tokens': res.body.data.metadata.tokens.prompt,
    'gen_ai.usage.output_tokens': res.body.data.metadata.tokens.completion,
    'agenthost.tool_used': 'none',
    'agenthost.outcome': 'ok',
  });
  expect(run?.parentSpanContext?.spanId).toBe(http?.spanContext().spanId);
  expect(modelCall?.attributes).toMatchObject({ 'gen_ai.request.model': 'echo', 'gen_ai.usage.input_tokens': res.body.data.metadata.tokens.prompt });
  expect(spans.filter((s) => s.spanContext().traceId === http?.spanContext().traceId).length).toBeGreaterThanOrEqual(4);
  // Inputs and outputs are not recorded unless asked for.
  expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('trace me');
});
