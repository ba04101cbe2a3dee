import { AgentService, openAIModels, staticTools } from '@agenthost/core';
import { type FakeOpenAIServer, sequentialIds, startFakeOpenAIServer, testClock } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { addTool } from './add-tool-fixture.js';
import { staticKeys } from './auth.js';
import { type ServedRouter, serveRouter } from './test-served-router.js';

// Agents' configuration, versions and metadata over real HTTP, with the real OpenAI provider against
// a loopback fake that answers with the system instruction it was sent (so a run shows its version).
const KEY = 'key-versions-0123456789abcdef';
const OTHER = 'key-versions-other-0123456789';
const READER = 'key-versions-reader-012345678';
const NOW = '2026-11-22T10:00:00.000Z';
let fake: FakeOpenAIServer;
let served: ServedRouter;
let base: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer({
    reply: (request) => ({
      text: `instruction: ${request.messages.find((m) => m.role === 'system')?.content}`,
      usage: { input: 10, output: 3 },
    }),
  });
  const clock = testClock(NOW);
  const service = new AgentService({
    store: new MemoryStore(),
    models: openAIModels({ apiKey: 'provider-key', baseURL: fake.baseURL, models: ['gpt-4o-mini', 'gpt-4o'] }),
    tools: staticTools({ calculator: { add: addTool() }, search: { find: addTool(), fetch_page: addTool() } }),
    // Each reading of the clock is a second later: every change has its own time.
    now: () => {
      clock.advance(1000);
      return clock();
    },
    generateId: sequentialIds(),
    maxRetries: 0,
    maxOutputTokens: 2000,
  });
  served = await serveRouter(service, {
    resolveKey: staticKeys([
      { account: 'acme', key: KEY },
      { account: 'other', key: OTHER },
      { account: 'acme', key: READER, scopes: ['agents:read'] },
    ]),
  });
  base = served.base;
});

afterEach(async () => {
  await served.close();
  await fake.close();
});

async function call(method: string, path: string, body?: unknown, key = KEY) {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

/** A configuration as answered, `given` over the defaults. */
function config(given: Record<string, unknown> = {}) {
  const full = {
    agent_id: 'agent_1',
    name: 'Support',
    instruction: 'v1',
    model: 'gpt-4o-mini',
    tool: null,
    tools: [],
    require_approval: [],
    component: 'Chat',
    temperature: null,
    top_p: null,
    max_output_tokens: null,
    fallback_models: [],
    metadata: {},
    ...given,
  };
  return { ...full, selectedModel: full.model, selectedTool: full.tool };
}

const ok = (data: unknown) => ({ status: 200, body: { success: true, data, status: 200 } });
const shape = ({ status, body }: { status: number; body: unknown }) => ({ status, body });

describe('configuration fields', () => {
  test('create with tools, settings and metadata; get answers the whole record', async () => {
    const fields = {
      tools: ['search', 'calculator'],
      require_approval: ['fetch_page', 'calculator'],
      temperature: 0.2,
      top_p: 0.5,
      max_output_tokens: 2000,
      fallback_models: ['gpt-4o'],
      metadata: { team: 'support', 'region.eu': 'yes' },
    };
    const created = await call('POST', '/agents', {
      name: 'Support',
      instruction: 'v1',
      model: 'gpt-4o-mini',
      ...fields,
    });
    expect(shape(created)).toStrictEqual(ok({ agent_id: 'agent_1', created_at: at(1) }));
    const record = {
      agent_id: 'agent_1',
      name: 'Support',
      config: config({ ...fields, tool: 'search' }),
      metadata: fields.metadata,
      version: 1,
      created_at: at(1),
      updated_at: at(1),
    };
    expect(shape(await call('GET', '/agents/agent_1'))).toStrictEqual(ok(record));
    expect(shape(await call('GET', '/agents'))).toStrictEqual(ok([record]));
  });

  test('bad fields are 400 invalid_input naming the field, and nothing is stored', async () => {
    const agent = { name: 'S', instruction: 'i', model: 'gpt-4o-mini' };
    const cases: [Record<string, unknown>, string, (string | number)[]][] = [
      [{ tools: ['nope'] }, 'tool', ['tool']],
      [{ tools: ['calculator', 'nope'] }, 'tools', ['tools', 1]],
      [{ tool: 'search', tools: ['calculator'] }, 'tool', ['tool']],
      [{ require_approval: ['add'] }, 'require_approval', ['require_approval', 0]],
      [{ fallback_models: ['gpt-4o-mini'] }, 'fallback_models', ['fallback_models', 0]],
      [{ max_output_tokens: 2001 }, 'max_output_tokens', ['max_output_tokens']],
      [{ top_p: 1.5 }, 'top_p', ['top_p']],
      [{ metadata: { ok: 'x'.repeat(513) } }, 'metadata', ['metadata', 'ok']],
      [
        { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
        'metadata',
        ['metadata'],
      ],
    ];
    for (const [given, field, path] of cases) {
      const res = await call('POST', '/agents', { ...agent, ...given });
      expect([
        given,
        res.status,
        res.body.code,
        Object.keys(res.body.details),
        res.body.details[field].path,
      ]).toStrictEqual([given, 400, 'invalid_input', [field], path]);
    }
    expect(shape(await call('GET', '/agents'))).toStrictEqual(ok([]));
  });
});

describe('versions', () => {
  test('three updates make four versions; get one; restore version 1 as version 5; run on version 2', async () => {
    await call('POST', '/agents', { name: 'Support', instruction: 'v1', model: 'gpt-4o-mini' });
    const patched = await call('PATCH', '/agents/agent_1', { instruction: 'v2', tools: ['calculator'] });
    expect(shape(patched)).toStrictEqual(
      ok({
        agent_id: 'agent_1',
        name: 'Support',
        config: config({ instruction: 'v2', tools: ['calculator'], tool: 'calculator' }),
        metadata: {},
        version: 2,
        created_at: at(1),
        updated_at: at(2),
      }),
    );
    await call('PUT', '/agents/agent_1', { config: { instruction: 'v3', temperature: 0.7 } });
    const v4 = await call('PATCH', '/agents/agent_1', { instruction: 'v4', metadata: { team: 'x' } });
    expect([v4.body.data.version, v4.body.data.updated_at]).toStrictEqual([4, at(4)]);
    // A body that changes nothing is no version.
    const same = await call('PATCH', '/agents/agent_1', { instruction: 'v4' });
    expect(shape(same)).toStrictEqual(shape(v4));

    const configs = [
      config(),
      config({ instruction: 'v2', tools: ['calculator'], tool: 'calculator' }),
      config({ instruction: 'v3', tools: ['calculator'], tool: 'calculator', temperature: 0.7 }),
      config({
        instruction: 'v4',
        tools: ['calculator'],
        tool: 'calculator',
        temperature: 0.7,
        metadata: { team: 'x' },
      }),
    ];
    const versions = configs.map((c, i) => ({ agent_id: 'agent_1', version: i + 1, config: c, created_at: at(i + 1) }));
    expect(shape(await call('GET', '/agents/agent_1/versions'))).toStrictEqual(
      ok({ versions: [...versions].reverse(), next_cursor: null }),
    );
    const first = await call('GET', '/agents/agent_1/versions?limit=3');
    expect(first.body.data.versions).toStrictEqual(versions.slice(1).reverse());
    expect(
      shape(await call('GET', `/agents/agent_1/versions?limit=3&cursor=${first.body.data.next_cursor}`)),
    ).toStrictEqual(ok({ versions: versions.slice(0, 1), next_cursor: null }));
    expect(shape(await call('GET', '/agents/agent_1/versions/2'))).toStrictEqual(ok(versions[1]));

    const restored = await call('POST', '/agents/agent_1/versions/1/restore');
    const current = {
      agent_id: 'agent_1',
      name: 'Support',
      config: config(),
      metadata: {},
      version: 5,
      created_at: at(1),
      updated_at: at(5),
    };
    expect(shape(restored)).toStrictEqual(ok(current));
    expect(shape(await call('GET', '/agents/agent_1'))).toStrictEqual(ok(current));
    expect(shape(await call('GET', '/agents/agent_1/versions/5'))).toStrictEqual(
      ok({ agent_id: 'agent_1', version: 5, config: config(), created_at: at(5) }),
    );

    const onTwo = await call('POST', '/agents/agent_1/run', { input: 'hi', version: 2 });
    expect([onTwo.status, onTwo.body.data.output, onTwo.body.data.metadata.agent_version]).toStrictEqual([
      200,
      'instruction: v2',
      2,
    ]);
    const onCurrent = await call('POST', '/agents/agent_1/run', { input: 'hi' });
    expect([onCurrent.body.data.output, onCurrent.body.data.metadata.agent_version]).toStrictEqual([
      'instruction: v1',
      5,
    ]);
    expect(fake.requests.map((r) => r.tools)).toStrictEqual([['add'], []]);
  });

  test('unknown versions are 404 "Version not found"; a bad version in a run body is 400', async () => {
    await call('POST', '/agents', { name: 'Support', instruction: 'v1', model: 'gpt-4o-mini' });
    const notFound = {
      status: 404,
      body: { success: false, error: 'Version not found', code: 'not_found', status: 404 },
    };
    for (const path of [
      '/versions/2',
      '/versions/0',
      '/versions/abc',
      '/versions/1.5',
      '/versions/99999999999999999999',
    ])
      expect(shape(await call('GET', `/agents/agent_1${path}`))).toStrictEqual(notFound);
    expect(shape(await call('POST', '/agents/agent_1/versions/2/restore'))).toStrictEqual(notFound);
    expect(shape(await call('POST', '/agents/agent_1/run', { input: 'hi', version: 2 }))).toStrictEqual(notFound);
    for (const version of [0, 1.5, '1', -1]) {
      const res = await call('POST', '/agents/agent_1/run', { input: 'hi', version });
      expect([res.status, res.body.code, Object.keys(res.body.details)]).toStrictEqual([
        400,
        'invalid_input',
        ['version'],
      ]);
    }
    const cursor = await call('GET', '/agents/agent_1/versions?cursor=forged');
    expect([cursor.status, Object.keys(cursor.body.details)]).toStrictEqual([400, ['cursor']]);
    expect(fake.requests).toStrictEqual([]);
  });

  test("another account's agent has no versions to see or restore; a read-only key cannot restore", async () => {
    await call('POST', '/agents', { name: 'Support', instruction: 'v1', model: 'gpt-4o-mini' });
    await call('PATCH', '/agents/agent_1', { instruction: 'v2' });
    const notFound = {
      status: 404,
      body: { success: false, error: 'Agent not found', code: 'not_found', status: 404 },
    };
    for (const [method, path] of [
      ['GET', '/agents/agent_1/versions'],
      ['GET', '/agents/agent_1/versions/1'],
      ['POST', '/agents/agent_1/versions/1/restore'],
      ['GET', '/agents/agent_2/versions'],
    ] as const)
      expect(shape(await call(method, path, undefined, OTHER))).toStrictEqual(notFound);
    const forbidden = await call('POST', '/agents/agent_1/versions/1/restore', undefined, READER);
    expect([forbidden.status, forbidden.body.code]).toStrictEqual([403, 'forbidden']);
    expect((await call('GET', '/agents/agent_1/versions', undefined, READER)).body.data.versions).toHaveLength(2);
    const agent = await call('GET', '/agents/agent_1');
    expect([agent.body.data.version, agent.body.data.config.instruction]).toStrictEqual([2, 'v2']);
  });
});

describe('the metadata filter of GET /agents', () => {
  test('every pair must match; paged, the next link keeps the filter; other accounts never show', async () => {
    const agents = [
      ['a', { team: 'support' }],
      ['b', { team: 'support', tier: 'gold' }],
      ['c', { team: 'sales', tier: 'gold' }],
      ['d', { team: 'support', tier: 'gold' }],
    ] as const;
    for (const [name, metadata] of agents)
      await call('POST', '/agents', { name, instruction: 'i', model: 'gpt-4o-mini', metadata });
    await call(
      'POST',
      '/agents',
      { name: 'x', instruction: 'i', model: 'gpt-4o-mini', metadata: { team: 'support' } },
      OTHER,
    );
    const names = async (query: string, key = KEY) => {
      const res = await call('GET', `/agents?${query}`, undefined, key);
      return [res.status, res.body.data.map((a: { name: string }) => a.name)];
    };
    expect(await names('metadata[team]=support')).toStrictEqual([200, ['a', 'b', 'd']]);
    expect(await names('metadata[team]=support&metadata[tier]=gold')).toStrictEqual([200, ['b', 'd']]);
    expect(await names('metadata%5Btier%5D=gold&order=desc')).toStrictEqual([200, ['d', 'c', 'b']]);
    expect(await names('metadata[team]=nobody')).toStrictEqual([200, []]);
    expect(await names('metadata[team]=support', OTHER)).toStrictEqual([200, ['x']]);
    const page = await call('GET', '/agents?metadata[team]=support&limit=2');
    expect(page.body.data.map((a: { name: string }) => a.name)).toStrictEqual(['a', 'b']);
    const next = /^<\/api\/v1(\/agents\?[^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')![1]!;
    expect(next).toContain('metadata%5Bteam%5D=support');
    const rest = await call('GET', next);
    expect([rest.body.data.map((a: { name: string }) => a.name), rest.headers.get('link')]).toStrictEqual([
      ['d'],
      null,
    ]);
  });

  test.each([
    ['metadata[bad key]=x', 'metadata keys are 1 to 64 letters, digits, "_", "-", "." or ":"'],
    ['metadata[]=x', 'metadata keys are 1 to 64 letters, digits, "_", "-", "." or ":"'],
    ['metadata[a][b]=x', 'Filter on metadata as metadata[<key>]=<value>, one value per key'],
    ['metadata=x', 'Filter on metadata as metadata[<key>]=<value>, one value per key'],
    ['metadata[team]=a&metadata[team]=b', 'metadata[team] must be given once, as one value'],
    [`metadata[team]=${'x'.repeat(513)}`, 'metadata values are strings of at most 512 characters'],
  ])('%s is 400 invalid_input naming metadata', async (query, message) => {
    expect(shape(await call('GET', `/agents?${query}`))).toStrictEqual({
      status: 400,
      body: {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: { metadata: { message, path: ['metadata'] } },
        status: 400,
      },
    });
  });
});
