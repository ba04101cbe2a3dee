import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import { OpenTelemetry } from '@ai-sdk/otel';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import express from 'express';
import request from 'supertest';
import { afterAll, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
afterAll(() => provider.shutdown());

const KEY = 'key-trace-0123456789abcdef';

test("a run's span carries model and tokens, under the request's span, over the AI SDK's GenAI spans of the model call", async () => {
  const service = new AgentService({
    store: new MemoryStore(),
    models: echoModels(),
    telemetry: { enabled: true, integrations: [new OpenTelemetry()] },
  });
  const app = express().use(
    '/api/v1',
    createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]), tracing: true }),
  );
  const agentId = (
    await request(app)
      .post('/api/v1/agents')
      .set('x-api-key', KEY)
      .send({ name: 'A', instruction: 'Be brief.', model: 'echo' })
  ).body.data.agent_id;
  exporter.reset();
  const res = await request(app)
    .post(`/api/v1/agents/${agentId}/run`)
    .set('x-api-key', KEY)
    .set('x-request-id', 'req-traced')
    .send({ input: 'trace me', session_id: 's1' });
  expect(res.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 50));

  const spans = exporter.getFinishedSpans();
  const http = spans.find((s) => s.name === 'POST /api/v1/agents/:agentId/run');
  const run = spans.find((s) => s.name === 'agenthost.run');
  const modelCall = spans.find((s) => s.name === 'chat echo');
  expect(http?.attributes).toMatchObject({
    'http.route': '/api/v1/agents/:agentId/run',
    'http.response.status_code': 200,
    'agenthost.request_id': 'req-traced',
    'agenthost.account': 'acme',
  });
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
  expect(modelCall?.attributes).toMatchObject({
    'gen_ai.request.model': 'echo',
    'gen_ai.usage.input_tokens': res.body.data.metadata.tokens.prompt,
  });
  // The AI SDK's spans (invoke_agent, step, chat) nest under the run's.
  const agentSpan = spans.find((s) => s.name.startsWith('invoke_agent'));
  expect(agentSpan?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  expect(spans.filter((s) => s.spanContext().traceId === http?.spanContext().traceId).length).toBeGreaterThanOrEqual(4);
  // Inputs and outputs are not recorded unless asked for.
  expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('trace me');
});
