import assert from 'node:assert/strict';
import type { AgentRecord, AgentVersion } from '@agenthost/core';
import { agent, type ContractCases, unique } from './fixtures.js';

/** `record`'s next version: its instruction changed to `instruction`, `version` + 1, updated at `at`. */
function nextVersion(record: AgentRecord, instruction: string, at: string): AgentRecord {
  return {
    ...record,
    config: { ...record.config, instruction, tools: ['calculator'], tool: 'calculator', temperature: 0.5 },
    version: record.version + 1,
    updated_at: at,
  };
}

/** The version a record keeps of itself. */
const versionOf = (record: AgentRecord): AgentVersion => ({
  agent_id: record.agent_id,
  version: record.version,
  config: record.config,
  created_at: record.updated_at,
});

/** Cases on agent versions (kept with the record) and the metadata filter of the agent list. */
export function agentVersionCases(): ContractCases {
  return { ...versionHistoryCases(), ...versionOwnershipCases(), ...oldShapeRecordCases(), ...metadataFilterCases() };
}

/** Cases on the versions an agent keeps as it changes, and their pages. */
function versionHistoryCases(): ContractCases {
  return {
    'a created agent keeps version 1; each update keeps its own version': async (store) => {
      const account = unique('acct');
      const v1 = agent(unique('agt'));
      await store.createAgent(account, v1);
      assert.deepStrictEqual(await store.getAgentVersion(account, v1.agent_id, 1), versionOf(v1));
      const v2 = nextVersion(v1, 'Two.', '2026-01-02T00:00:00.000Z');
      const v3 = nextVersion(v2, 'Three.', '2026-01-03T00:00:00.000Z');
      assert.equal(await store.updateAgent(account, v2), true);
      assert.equal(await store.updateAgent(account, v3), true);
      assert.deepStrictEqual(await store.getAgent(account, v1.agent_id), v3);
      assert.deepStrictEqual(
        await Promise.all([1, 2, 3, 4, 0].map((n) => store.getAgentVersion(account, v1.agent_id, n))),
        [versionOf(v1), versionOf(v2), versionOf(v3), undefined, undefined],
      );
      assert.deepStrictEqual(await store.listAgentVersions(account, v1.agent_id, { limit: 10 }), {
        versions: [versionOf(v3), versionOf(v2), versionOf(v1)],
        next: null,
      });
    },

    'versions list newest first in pages': async (store) => {
      const account = unique('acct');
      let record = agent(unique('agt'));
      await store.createAgent(account, record);
      const all = [versionOf(record)];
      for (let i = 2; i <= 5; i++) {
        record = nextVersion(record, `Version ${i}.`, `2026-01-0${i}T00:00:00.000Z`);
        await store.updateAgent(account, record);
        all.unshift(versionOf(record));
      }
      const pages: AgentVersion[][] = [];
      let before: number | undefined;
      for (let guard = 0; guard < 10; guard++) {
        const page = await store.listAgentVersions(account, record.agent_id, {
          limit: 2,
          ...(before !== undefined && { before }),
        });
        pages.push(page.versions);
        if (page.next === null) break;
        before = page.next;
      }
      assert.deepStrictEqual(pages, [all.slice(0, 2), all.slice(2, 4), all.slice(4)]);
      assert.deepStrictEqual(await store.listAgentVersions(account, record.agent_id, { limit: 3, before: 5 }), {
        versions: all.slice(1, 4),
        next: 2,
      });
    },
  };
}

/** Cases on whose an agent's versions are: its account's, gone with it, never shared by reference. */
function versionOwnershipCases(): ContractCases {
  return {
    "an agent's versions are its account's only, and go when it is deleted": async (store) => {
      const [a, b] = [unique('acct'), unique('acct')];
      const record = agent(unique('agt'));
      await store.createAgent(a, record);
      const v2 = nextVersion(record, 'Two.', '2026-01-02T00:00:00.000Z');
      assert.equal(await store.updateAgent(b, v2), false);
      assert.equal(await store.getAgentVersion(b, record.agent_id, 1), undefined);
      assert.equal(await store.getAgentVersion(a, record.agent_id, 2), undefined);
      assert.deepStrictEqual(await store.listAgentVersions(b, record.agent_id, { limit: 10 }), {
        versions: [],
        next: null,
      });
      await store.updateAgent(a, v2);
      assert.equal(await store.deleteAgent(a, record.agent_id), true);
      assert.deepStrictEqual(
        [
          await store.getAgentVersion(a, record.agent_id, 1),
          await store.getAgentVersion(a, record.agent_id, 2),
          await store.listAgentVersions(a, record.agent_id, { limit: 10 }),
        ],
        [undefined, undefined, { versions: [], next: null }],
      );
    },

    'versions are copies: changing one changes nothing stored': async (store) => {
      const account = unique('acct');
      const record = agent(unique('agt'));
      const expected = versionOf(structuredClone(record));
      await store.createAgent(account, record);
      record.config.instruction = 'changed after create';
      const got = await store.getAgentVersion(account, record.agent_id, 1);
      assert.ok(got);
      got.config.model = 'changed after get';
      (await store.listAgentVersions(account, record.agent_id, { limit: 1 })).versions[0]!.config.name = 'changed';
      assert.deepStrictEqual(await store.getAgentVersion(account, record.agent_id, 1), expected);
    },
  };
}

/** Cases on agent records stored before versions, tools, settings and metadata. */
function oldShapeRecordCases(): ContractCases {
  return {
    'a record of the old shape (no version, tools, settings or metadata) reads back as stored, with no versions':
      async (store) => {
        const account = unique('acct');
        const id = unique('agt');
        const old = {
          agent_id: id,
          name: 'Old',
          config: { agent_id: id, name: 'Old', instruction: 'i', model: 'echo', tool: 'calculator', component: 'Chat' },
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        } as unknown as AgentRecord;
        await store.createAgent(account, old);
        assert.deepStrictEqual(await store.getAgent(account, id), old);
        assert.equal(await store.getAgentVersion(account, id, 1), undefined);
        assert.deepStrictEqual(await store.listAgentVersions(account, id, { limit: 10 }), { versions: [], next: null });
        assert.deepStrictEqual(
          (await store.listAgentsPage(account, { limit: 10, order: 'asc', metadata: { team: 'x' } })).agents,
          [],
        );
        // Its first change as the service makes it: version 1 kept, the record the commit point.
        const v1 = { ...old, metadata: {}, version: 1 } as unknown as AgentRecord;
        assert.equal(await store.updateAgent(account, v1), true);
        assert.deepStrictEqual(await store.getAgentVersion(account, id, 1), versionOf(v1));
        assert.equal(await store.deleteAgent(account, id), true);
        assert.equal(await store.getAgentVersion(account, id, 1), undefined);
      },
  };
}

/** Cases on the metadata filter of the agent list. */
function metadataFilterCases(): ContractCases {
  return {
    'the agent list filters on metadata: every pair must match, in pages': async (store) => {
      const account = unique('acct');
      const records = Array.from({ length: 9 }, (_, i) =>
        agent(`${unique('agt')}-${i}`, `a${i}`, '2026-01-01T00:00:00.000Z', {
          team: i % 3 === 0 ? 'support' : 'sales',
          ...(i % 2 === 0 && { tier: 'gold' }),
        }),
      );
      for (const r of records) await store.createAgent(account, r);
      await store.createAgent(unique('acct'), agent(unique('agt'), 'theirs', undefined, { team: 'support' }));
      const names = async (metadata: Record<string, string>, order: 'asc' | 'desc', limit = 10) => {
        const pages: string[][] = [];
        let after: number | undefined;
        for (let guard = 0; guard < 10; guard++) {
          const page = await store.listAgentsPage(account, {
            limit,
            order,
            metadata,
            ...(after !== undefined && { after }),
          });
          pages.push(page.agents.map((a) => a.name));
          if (page.next === null) break;
          after = page.next;
        }
        return pages;
      };
      assert.deepStrictEqual(await names({ team: 'support' }, 'asc'), [['a0', 'a3', 'a6']]);
      assert.deepStrictEqual(await names({ team: 'support', tier: 'gold' }, 'desc'), [['a6', 'a0']]);
      assert.deepStrictEqual((await names({ team: 'sales' }, 'asc', 2)).flat(), ['a1', 'a2', 'a4', 'a5', 'a7', 'a8']);
      assert.deepStrictEqual(await names({ team: 'none' }, 'asc'), [[]]);
      assert.deepStrictEqual(await names({ constructor: 'x' }, 'asc'), [[]]);
    },
  };
}
