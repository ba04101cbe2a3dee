import { MemoryStore } from '@agenthost/storage';
import {
  type Attributes,
  type Span,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { beforeEach, describe, expect, test } from 'vitest';
import { AgentService } from '../agent-service.js';
import { echoModels } from '../models/static-models.js';
import { sequentialIds } from '../testing/test-clock.js';

interface Recorded {
  name: string;
  attributes: Attributes;
  status?: SpanStatus;
  ended: boolean;
}

/** A tracer provider that keeps what each span was told. */
const spans: Recorded[] = [];
function recordingSpan(record: Recorded): Span {
  const span: Span = {
    spanContext: () => ({ traceId: '1'.padStart(32, '0'), spanId: '1'.padStart(16, '0'), traceFlags: 1 }),
    setAttribute: (key, value) => {
      if (value !== undefined) record.attributes[key] = value;
      return span;
    },
    setAttributes: (attributes) => {
      Object.assign(record.attributes, attributes);
      return span;
    },
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: (status) => {
      record.status = status;
      return span;
    },
    updateName: () => span,
    end: () => {
      record.ended = true;
    },
    isRecording: () => true,
    recordException: () => {},
  };
  return span;
}
const tracer = {
  startSpan: (name: string, options?: SpanOptions) => {
    const record: Recorded = { name, attributes: { ...options?.attributes }, ended: false };
    spans.push(record);
    return recordingSpan(record);
  },
} as Tracer;
const provider: TracerProvider = { getTracer: () => tracer };
trace.setGlobalTracerProvider(provider);

beforeEach(() => {
  spans.length = 0;
});

function service(enabled: boolean) {
  return new AgentService({
    store: new MemoryStore(),
    models: echoModels(),
    generateId: sequentialIds(),
    telemetry: { enabled },
  });
}

const done = (session: string, tokens: { prompt: number; completion: number }) => ({
  'agenthost.session_id': session,
  'gen_ai.request.model': 'echo',
  'gen_ai.usage.input_tokens': tokens.prompt,
  'gen_ai.usage.output_tokens': tokens.completion,
  'agenthost.tool_used': 'none',
  'agenthost.outcome': 'ok',
});

describe('the spans of runs', () => {
  test('a plain run and a streamed run are one agenthost.run span each, with ids, tokens and outcome', async () => {
    const svc = service(true);
    const { agent_id } = await svc.createAgent('acme', { name: 'A', instruction: 'I', model: 'echo' });
    const plain = await svc.runAgent('acme', agent_id, { input: 'hello' });
    let streamed: { metadata: { tokens: { prompt: number; completion: number } } } | undefined;
    for await (const event of await svc.streamAgent('acme', agent_id, { input: 'again', session_id: 's' }))
      if (event.type === 'done') streamed = event.result;
    expect(spans).toStrictEqual([
      {
        name: 'agenthost.run',
        attributes: { 'agenthost.agent_id': agent_id, ...done('session_1', plain.metadata.tokens) },
        ended: true,
      },
      {
        name: 'agenthost.run',
        attributes: {
          'agenthost.agent_id': agent_id,
          'agenthost.stream': true,
          ...done('s', streamed!.metadata.tokens),
        },
        ended: true,
      },
    ]);
  });

  test('a failed run records the error code as its outcome and an error status', async () => {
    const svc = service(true);
    await svc.runAgent('acme', 'agent_404', { input: 'hello' }).catch(() => {});
    expect(spans).toStrictEqual([
      {
        name: 'agenthost.run',
        attributes: { 'agenthost.agent_id': 'agent_404', 'agenthost.outcome': 'not_found' },
        status: { code: SpanStatusCode.ERROR, message: 'not_found' },
        ended: true,
      },
    ]);
  });

  test('with telemetry off, runs start no span', async () => {
    const svc = service(false);
    const { agent_id } = await svc.createAgent('acme', { name: 'A', instruction: 'I', model: 'echo' });
    await svc.runAgent('acme', agent_id, { input: 'hello' });
    for await (const _ of await svc.streamAgent('acme', agent_id, { input: 'again' })) void _;
    expect(spans).toStrictEqual([]);
  });
});
