import { MemoryStore } from '@agenthost/storage';
import { MockLanguageModelV4 } from 'ai/test';
import { beforeEach, describe, expect, test } from 'vitest';
import { AgentService } from '../agent-service.js';
import { staticModels } from '../models/static-models.js';
import type { AgentRecord, AgentVersion } from '../records.js';
import { agentHostError as rejection } from '../testing/rejection.js';
import { sequentialIds, type TestClock, testClock } from '../testing/test-clock.js';
import { configForRun } from './agent-versions.js';

const ACME = 'acme';
const base = { name: 'Support', instruction: 'v1', model: 'mock' };

let store: MemoryStore;
let clock: TestClock;
let service: AgentService;

beforeEach(() => {
  store = new MemoryStore();
  clock = testClock('2026-11-22T10:00:00.000Z');
  const model = new MockLanguageModelV4();
  service = new AgentService({
    store,
    models: staticModels({ mock: model, other: model }),
    now: clock,
    generateId: sequentialIds(),
  });
});

/** Creates an agent and changes its instruction to v2, v3, v4, a second apart: four versions. */
async function fourVersions(): Promise<AgentRecord[]> {
  const records = [await service.createAgent(ACME, base)];
  for (const n of [2, 3, 4]) {
    clock.advance(1000);
    records.push(await service.updateAgent(ACME, 'agent_1', { instruction: `v${n}` }));
  }
  return records;
}

const versionOf = (r: AgentRecord): AgentVersion => ({
  agent_id: r.agent_id,
  version: r.version,
  config: r.config,
  created_at: r.updated_at,
});

describe('versions', () => {
  test('create is version 1, each change one more; listed newest first, in pages', async () => {
    const records = await fourVersions();
    expect(records.map((r) => [r.version, r.config.instruction, r.updated_at])).toStrictEqual([
      [1, 'v1', '2026-11-22T10:00:00.000Z'],
      [2, 'v2', '2026-11-22T10:00:01.000Z'],
      [3, 'v3', '2026-11-22T10:00:02.000Z'],
      [4, 'v4', '2026-11-22T10:00:03.000Z'],
    ]);
    const all = records.map(versionOf).reverse();
    expect(await service.listAgentVersions(ACME, 'agent_1')).toStrictEqual({ versions: all, next_cursor: null });
    const first = await service.listAgentVersions(ACME, 'agent_1', { limit: 3 });
    expect(first.versions).toStrictEqual(all.slice(0, 3));
    const second = await service.listAgentVersions(ACME, 'agent_1', { limit: 3, cursor: first.next_cursor ?? '' });
    expect(second).toStrictEqual({ versions: all.slice(3), next_cursor: null });
    const one = await service.listAgentVersions(ACME, 'agent_1', { limit: 1 });
    expect(one.versions).toStrictEqual(all.slice(0, 1));
    expect(
      (await service.listAgentVersions(ACME, 'agent_1', { limit: 2, cursor: one.next_cursor ?? '' })).versions,
    ).toStrictEqual(all.slice(1, 3));
  });

  test('get one; an unknown number is "Version not found"', async () => {
    const records = await fourVersions();
    expect(await service.getAgentVersion(ACME, 'agent_1', 2)).toStrictEqual(versionOf(records[1]!));
    for (const n of [0, 5, -1, 1.5, Number.NaN]) {
      const error = await rejection(service.getAgentVersion(ACME, 'agent_1', n));
      expect([error.code, error.message]).toStrictEqual(['not_found', 'Version not found']);
    }
  });

  test("restore makes an earlier version's configuration a new version", async () => {
    const records = await fourVersions();
    clock.advance(1000);
    const restored = await service.restoreAgentVersion(ACME, 'agent_1', 1);
    const expected = { ...records[0]!, version: 5, updated_at: '2026-11-22T10:00:04.000Z' };
    expect(restored).toStrictEqual(expected);
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(expected);
    expect((await service.listAgentVersions(ACME, 'agent_1')).versions.map((v) => v.version)).toStrictEqual([
      5, 4, 3, 2, 1,
    ]);
    // Restoring the configuration it has is no change.
    expect(await service.restoreAgentVersion(ACME, 'agent_1', 1)).toStrictEqual(expected);
    const error = await rejection(service.restoreAgentVersion(ACME, 'agent_1', 9));
    expect([error.code, error.message]).toStrictEqual(['not_found', 'Version not found']);
  });

  test("another account sees none of an agent's versions and cannot restore one", async () => {
    await fourVersions();
    for (const call of [
      () => service.listAgentVersions('other', 'agent_1'),
      () => service.getAgentVersion('other', 'agent_1', 1),
      () => service.restoreAgentVersion('other', 'agent_1', 1),
    ]) {
      const error = await rejection(call());
      expect([error.code, error.message]).toStrictEqual(['not_found', 'Agent not found']);
    }
    expect((await service.getAgent(ACME, 'agent_1')).version).toBe(4);
  });

  test('a version that names a model no longer offered cannot be restored', async () => {
    await service.createAgent(ACME, { ...base, model: 'other' });
    await service.updateAgent(ACME, 'agent_1', { model: 'mock' });
    const narrower = new AgentService({
      store,
      models: staticModels({ mock: new MockLanguageModelV4() }),
      now: clock,
    });
    const error = await rejection(narrower.restoreAgentVersion(ACME, 'agent_1', 1));
    expect([error.code, Object.keys(error.details ?? {})]).toStrictEqual(['invalid_input', ['model']]);
    expect((await service.getAgent(ACME, 'agent_1')).version).toBe(2);
  });

  test('concurrent updates take turns: versions numbered one after another, none lost', async () => {
    await service.createAgent(ACME, base);
    const updated = await Promise.all(
      Array.from({ length: 6 }, (_, i) => service.updateAgent(ACME, 'agent_1', { instruction: `c${i}` })),
    );
    expect(updated.map((r) => r.version).sort()).toStrictEqual([2, 3, 4, 5, 6, 7]);
    const versions = (await service.listAgentVersions(ACME, 'agent_1')).versions;
    expect(versions.map((v) => v.version)).toStrictEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(new Set(versions.map((v) => v.config.instruction)).size).toBe(7);
  });
});

describe('a run on a version', () => {
  test("uses that version's configuration and reports its number; the current one by default", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    service = new AgentService({
      store,
      models: staticModels({ mock: model }),
      now: clock,
      generateId: sequentialIds(),
    });
    await fourVersions();
    const onTwo = await service.runAgent(ACME, 'agent_1', { input: 'hi', version: 2 });
    const current = await service.runAgent(ACME, 'agent_1', { input: 'hi' });
    expect([onTwo.metadata.agent_version, current.metadata.agent_version]).toStrictEqual([2, 4]);
    expect(model.doGenerateCalls.map((c) => c.prompt[0])).toStrictEqual([
      { role: 'system', content: 'v2' },
      { role: 'system', content: 'v4' },
    ]);
    const error = await rejection(service.runAgent(ACME, 'agent_1', { input: 'hi', version: 5 }));
    expect([error.code, error.message, model.doGenerateCalls.length]).toStrictEqual([
      'not_found',
      'Version not found',
      2,
    ]);
  });
});

describe('configForRun', () => {
  test('the current configuration, or that of the version named', async () => {
    const records = await fourVersions();
    const agent = records[3]!;
    expect(await configForRun(store, ACME, agent, undefined)).toStrictEqual({ config: agent.config, version: 4 });
    expect(await configForRun(store, ACME, agent, null)).toStrictEqual({ config: agent.config, version: 4 });
    expect(await configForRun(store, ACME, agent, 2)).toStrictEqual({ config: records[1]!.config, version: 2 });
    const error = await rejection(configForRun(store, ACME, agent, 7));
    expect([error.code, error.message]).toStrictEqual(['not_found', 'Version not found']);
  });
});
