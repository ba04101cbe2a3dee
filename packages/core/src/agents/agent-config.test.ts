import { MemoryStore } from '@agenthost/storage';
import { tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { AgentService } from '../agent-service.js';
import { staticModels } from '../models/static-models.js';
import type { AgentRecord } from '../records.js';
import { agentHostError as rejection } from '../testing/rejection.js';
import { sequentialIds, type TestClock, testClock } from '../testing/test-clock.js';
import { staticTools } from '../tools/static-tools.js';

const ACME = 'acme';
const calc = tool({ description: 'adds', inputSchema: z.object({ a: z.number() }), execute: async () => 1 });
const base = { name: 'Support', instruction: 'Be brief.', model: 'mock' };

let store: MemoryStore;
let clock: TestClock;

function makeService() {
  const model = new MockLanguageModelV4();
  return new AgentService({
    store,
    models: staticModels({ mock: model, 'mock-2': model, 'mock-3': model }),
    tools: staticTools({ calculator: { add: calc }, search: { find: calc, fetch_page: calc }, clash: { add: calc } }),
    now: clock,
    generateId: sequentialIds(),
    maxOutputTokens: 1000,
  });
}

beforeEach(() => {
  store = new MemoryStore();
  clock = testClock('2026-11-22T10:00:00.000Z');
});

/** A record as create returns it, with `config` overriding the defaults. */
function record(config: Partial<AgentRecord['config']> = {}): AgentRecord {
  const full = {
    agent_id: 'agent_1',
    ...base,
    tool: null,
    tools: [],
    require_approval: [],
    component: 'Chat',
    temperature: null,
    top_p: null,
    max_output_tokens: null,
    fallback_models: [],
    metadata: {},
    ...config,
  };
  return {
    agent_id: 'agent_1',
    name: full.name,
    config: full,
    metadata: full.metadata,
    version: 1,
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
  };
}

describe('create: tools, settings and metadata', () => {
  test('every field is stored and returned; tool is the first of tools', async () => {
    const service = makeService();
    const input = {
      ...base,
      tools: ['search', 'calculator'],
      require_approval: ['calculator', 'fetch_page'],
      temperature: 0.3,
      top_p: 0.9,
      max_output_tokens: 1000,
      fallback_models: ['mock-2', 'mock-3'],
      metadata: { team: 'support', 'cost.center': '42' },
    };
    const expected = record({ ...input, tool: 'search' });
    expect(await service.createAgent(ACME, input)).toStrictEqual(expected);
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(expected);
    expect(await service.listAgents(ACME)).toStrictEqual([expected]);
  });

  test.each([
    [{ tool: 'calculator' }, { tool: 'calculator', tools: ['calculator'] }],
    [{ tool: 'none' }, {}],
    [{ tool: null, tools: [] }, {}],
    [{ tools: ['calculator', 'search'] }, { tool: 'calculator', tools: ['calculator', 'search'] }],
    [
      { tool: 'search', tools: ['search'] },
      { tool: 'search', tools: ['search'] },
    ],
  ])('tool and tools are one field: %j', async (given, config) => {
    expect(await makeService().createAgent(ACME, { ...base, ...given })).toStrictEqual(record(config));
  });

  test.each([
    [{ tool: 'search', tools: ['calculator', 'search'] }, 'tool', ['tool']],
    [{ tool: null, tools: ['calculator'] }, 'tool', ['tool']],
    [{ tools: ['calculator', 'clash'] }, 'tools', ['tools', 1]],
    [{ tools: ['calculator', 'nope'] }, 'tools', ['tools', 1]],
    [{ tools: ['calculator', 'calculator'] }, 'tools', ['tools']],
    [{ tools: ['search'], require_approval: ['add'] }, 'require_approval', ['require_approval', 0]],
    [{ require_approval: ['calculator'] }, 'require_approval', ['require_approval', 0]],
    [{ fallback_models: ['mock'] }, 'fallback_models', ['fallback_models', 0]],
    [{ fallback_models: ['mock-2', 'gpt-9'] }, 'fallback_models', ['fallback_models', 1]],
    [{ max_output_tokens: 1001 }, 'max_output_tokens', ['max_output_tokens']],
    [{ temperature: 2.5 }, 'temperature', ['temperature']],
    [{ metadata: { 'bad key': 'x' } }, 'metadata', ['metadata', 'bad key']],
    [{ metadata: { team: 7 } }, 'metadata', ['metadata', 'team']],
  ])('refused, nothing stored: %j', async (given, field, path) => {
    const service = makeService();
    const error = await rejection(service.createAgent(ACME, { ...base, ...given } as never));
    expect([error.code, Object.keys(error.details ?? {}), error.details?.[field]?.path]).toStrictEqual([
      'invalid_input',
      [field],
      path,
    ]);
    expect(await service.listAgents(ACME)).toStrictEqual([]);
  });

  test('the messages say what is wrong and what is offered', async () => {
    const service = makeService();
    const messages = async (given: object) =>
      Object.values((await rejection(service.createAgent(ACME, { ...base, ...given } as never))).details ?? {}).map(
        (d) => d.message,
      );
    expect(await messages({ tools: ['calculator', 'clash'] })).toStrictEqual([
      '"clash" and "calculator" both give a tool named "add"; use one',
    ]);
    expect(await messages({ tools: ['search'], require_approval: ['add'] })).toStrictEqual([
      'require_approval names "add", which is neither one of the agent\'s tools nor a tool they give (find, fetch_page)',
    ]);
    expect(await messages({ max_output_tokens: 5000 })).toStrictEqual([
      'max_output_tokens must be at most 1000 on this server',
    ]);
    expect(await messages({ tool: 'calculator', tools: ['search'] })).toStrictEqual([
      'tool must be the first of tools (or null when tools is empty): they are one field',
    ]);
  });
});

describe('update: settings', () => {
  test('null clears a setting, metadata is replaced whole, tool follows tools; each change is a version', async () => {
    const service = makeService();
    await service.createAgent(ACME, { ...base, temperature: 1, metadata: { team: 'a', tier: 'b' } });
    clock.advance(1000);
    const updated = await service.updateAgent(ACME, 'agent_1', {
      temperature: null,
      metadata: { team: 'c' },
      tools: ['search'],
    });
    const expected = {
      ...record({ metadata: { team: 'c' }, tools: ['search'], tool: 'search' }),
      version: 2,
      updated_at: '2026-11-22T10:00:01.000Z',
    };
    expect(updated).toStrictEqual(expected);
    clock.advance(1000);
    const cleared = await service.updateAgent(ACME, 'agent_1', { tool: null });
    expect(cleared).toStrictEqual({
      ...expected,
      config: { ...expected.config, tool: null, tools: [] },
      version: 3,
      updated_at: '2026-11-22T10:00:02.000Z',
    });
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(cleared);
  });

  test('null clears the lists and metadata too: tools, require_approval, fallback_models, metadata', async () => {
    const service = makeService();
    await service.createAgent(ACME, {
      ...base,
      tools: ['search', 'calculator'],
      require_approval: ['fetch_page'],
      fallback_models: ['mock-2'],
      metadata: { team: 'a' },
      temperature: 0.5,
    });
    clock.advance(1000);
    const cleared = await service.updateAgent(ACME, 'agent_1', {
      tools: null,
      require_approval: null,
      fallback_models: null,
      metadata: null,
    });
    const expected = {
      ...record({ temperature: 0.5 }),
      version: 2,
      updated_at: '2026-11-22T10:00:01.000Z',
    };
    expect(cleared).toStrictEqual(expected);
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(expected);
    expect((await service.getAgentVersion(ACME, 'agent_1', 2)).config).toStrictEqual(expected.config);
    // Clearing what is already empty changes nothing: no new version.
    clock.advance(1000);
    expect(await service.updateAgent(ACME, 'agent_1', { tools: null, metadata: null })).toStrictEqual(expected);
  });

  test('null on create is the same as leaving the field out', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, {
      ...base,
      tools: null,
      require_approval: null,
      fallback_models: null,
      metadata: null,
    });
    expect(created).toStrictEqual(record());
  });

  test('tool and tools null together clear the tools; a tool beside tools null must be null', async () => {
    const service = makeService();
    await service.createAgent(ACME, { ...base, tool: 'calculator' });
    clock.advance(1000);
    const error = await rejection(service.updateAgent(ACME, 'agent_1', { tool: 'search', tools: null }));
    expect([error.code, Object.keys(error.details ?? {})]).toStrictEqual(['invalid_input', ['tool']]);
    const cleared = await service.updateAgent(ACME, 'agent_1', { tool: null, tools: null });
    expect(cleared.config.tools).toStrictEqual([]);
    expect(cleared.config.tool).toBeNull();
  });

  test('an update that changes nothing keeps the record as it is: no new version, updated_at stays', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, { ...base, tool: 'calculator', metadata: { a: '1', b: '2' } });
    clock.advance(1000);
    const same = await service.updateAgent(ACME, 'agent_1', {
      name: 'Support',
      tools: ['calculator'],
      metadata: { b: '2', a: '1' },
    });
    expect(same).toStrictEqual(created);
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(created);
    expect((await service.listAgentVersions(ACME, 'agent_1')).versions.map((v) => v.version)).toStrictEqual([1]);
  });

  test('a bad setting is refused and nothing changes', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, base);
    const error = await rejection(service.updateAgent(ACME, 'agent_1', { require_approval: ['add'] }));
    expect(error.details?.require_approval?.path).toStrictEqual(['require_approval', 0]);
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(created);
  });
});

describe('records stored before tools, settings, metadata and versions', () => {
  const old = {
    agent_id: 'agent_old',
    name: 'Old',
    config: { agent_id: 'agent_old', name: 'Old', instruction: 'i', model: 'mock', tool: 'calculator', component: 'X' },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
  };
  const shaped: AgentRecord = {
    agent_id: 'agent_old',
    name: 'Old',
    config: {
      ...record().config,
      agent_id: 'agent_old',
      name: 'Old',
      instruction: 'i',
      tool: 'calculator',
      tools: ['calculator'],
      component: 'X',
    },
    metadata: {},
    version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
  };

  test('read with every field, through get, both lists and a version', async () => {
    await store.createAgent(ACME, old as unknown as AgentRecord);
    const service = makeService();
    expect(await service.getAgent(ACME, 'agent_old')).toStrictEqual(shaped);
    expect(await service.listAgents(ACME)).toStrictEqual([shaped]);
    expect((await service.listAgentsPage(ACME)).agents).toStrictEqual([shaped]);
    const v1 = { agent_id: 'agent_old', version: 1, config: shaped.config, created_at: shaped.updated_at };
    expect(await service.getAgentVersion(ACME, 'agent_old', 1)).toStrictEqual(v1);
    expect(await service.listAgentVersions(ACME, 'agent_old')).toStrictEqual({ versions: [v1], next_cursor: null });
  });

  test('a change keeps the old configuration as version 1', async () => {
    await store.createAgent(ACME, old as unknown as AgentRecord);
    const service = makeService();
    const changed = await service.updateAgent(ACME, 'agent_old', { instruction: 'new' });
    expect([changed.version, changed.config.instruction]).toStrictEqual([2, 'new']);
    expect(await service.getAgentVersion(ACME, 'agent_old', 1)).toStrictEqual({
      agent_id: 'agent_old',
      version: 1,
      config: shaped.config,
      created_at: shaped.updated_at,
    });
  });
});

describe('the agent list filters on metadata', () => {
  test('every pair must match; both lists; an empty filter is none', async () => {
    const service = makeService();
    for (const [name, metadata] of [
      ['a', { team: 'support' }],
      ['b', { team: 'support', tier: 'gold' }],
      ['c', { team: 'sales', tier: 'gold' }],
      ['d', {}],
    ] as const)
      await service.createAgent(ACME, { ...base, name, metadata });
    await service.createAgent('other', { ...base, name: 'x', metadata: { team: 'support' } });
    const names = (agents: AgentRecord[]) => agents.map((a) => a.name);
    expect(names(await service.listAgents(ACME, { metadata: { team: 'support' } }))).toStrictEqual(['a', 'b']);
    expect(names(await service.listAgents(ACME, { metadata: {} }))).toStrictEqual(['a', 'b', 'c', 'd']);
    const page = await service.listAgentsPage(ACME, { metadata: { tier: 'gold' }, order: 'desc', limit: 1 });
    expect(names(page.agents)).toStrictEqual(['c']);
    const rest = await service.listAgentsPage(ACME, {
      metadata: { tier: 'gold' },
      order: 'desc',
      cursor: page.next_cursor ?? '',
    });
    expect([names(rest.agents), rest.next_cursor]).toStrictEqual([['b'], null]);
    expect(
      names((await service.listAgentsPage(ACME, { metadata: { team: 'support', tier: 'gold' } })).agents),
    ).toStrictEqual(['b']);
  });

  test.each([
    [{ 'bad key': 'x' }],
    [{ team: 3 }],
    [['team']],
    ['team'],
    [Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']))],
    [{ team: 'x'.repeat(513) }],
  ])('a bad filter is a 400 naming metadata: %j', async (metadata) => {
    const error = await rejection(makeService().listAgentsPage(ACME, { metadata } as never));
    expect([error.code, Object.keys(error.details ?? {})]).toStrictEqual(['invalid_input', ['metadata']]);
  });
});

describe('update: tool and tools sent back together', () => {
  test.each([
    // A record read and sent back whole with only `tool` changed: `tool` is the change.
    [{ tool: 'calculator', tools: ['search'] }, ['calculator']],
    [{ tool: null, tools: ['search'] }, []],
    // ... with only `tools` changed: `tools` is the change.
    [{ tool: 'search', tools: ['calculator', 'search'] }, ['calculator', 'search']],
    [{ tool: 'search', tools: [] }, []],
    // Agreeing.
    [{ tool: 'calculator', tools: ['calculator'] }, ['calculator']],
  ])('%j => tools %j', async (given, tools) => {
    const service = makeService();
    await service.createAgent(ACME, { ...base, tools: ['search'] });
    const updated = await service.updateAgent(ACME, 'agent_1', given);
    expect([updated.config.tools, updated.config.tool]).toStrictEqual([tools, tools[0] ?? null]);
  });

  test('both changed and disagreeing is a 400 naming tool, and nothing changes', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, { ...base, tools: ['search'] });
    const error = await rejection(service.updateAgent(ACME, 'agent_1', { tool: 'calculator', tools: ['clash'] }));
    expect([error.code, Object.keys(error.details ?? {})]).toStrictEqual(['invalid_input', ['tool']]);
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(created);
  });
});
