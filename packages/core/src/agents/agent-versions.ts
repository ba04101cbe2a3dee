import { NotFoundError } from '../errors/not-found-error.js';
import { decodeCursor, encodeCursor, type PageOptions, pageLimit } from '../paging.js';
import type { AgentStore } from '../ports/agent-store.js';
import type { AgentConfig, AgentRecord, AgentVersion, AgentVersionList } from '../records.js';
import { configShape } from './agent-records.js';

/** The current version of `agent`, as its record says. */
function currentVersion(agent: AgentRecord): AgentVersion {
  return { agent_id: agent.agent_id, version: agent.version, config: agent.config, created_at: agent.updated_at };
}

/** A stored version, with every configuration field (a version kept before a field existed lacks it). */
function versionShape(version: AgentVersion): AgentVersion {
  return {
    agent_id: version.agent_id,
    version: version.version,
    config: configShape(version.config, version.agent_id),
    created_at: version.created_at,
  };
}

/**
 * One version of an agent (found by the caller, so of the caller's account). The current version
 * is the record's own configuration when the store kept none (a record stored before versions were).
 * @throws NotFoundError "Version not found" for a number the agent never had.
 */
export async function findVersion(
  store: AgentStore,
  accountId: string,
  agent: AgentRecord,
  version: number,
): Promise<AgentVersion> {
  if (!Number.isSafeInteger(version) || version < 1 || version > agent.version)
    throw new NotFoundError({ message: 'Version not found' });
  if (version === agent.version) return currentVersion(agent);
  const kept = await store.getAgentVersion(accountId, agent.agent_id, version);
  if (!kept) throw new NotFoundError({ message: 'Version not found' });
  return versionShape(kept);
}

/**
 * The configuration a run uses: the agent's current one, or that of the version the run names.
 * @throws NotFoundError "Version not found" when the agent has no such version.
 */
export async function configForRun(
  store: AgentStore,
  accountId: string,
  agent: AgentRecord,
  version: number | undefined | null,
): Promise<{ config: AgentConfig; version: number }> {
  if (version === undefined || version === null) return { config: agent.config, version: agent.version };
  const found = await findVersion(store, accountId, agent, version);
  return { config: found.config, version: found.version };
}

/**
 * One page of an agent's versions, newest first.
 * @throws InvalidInputError for a bad `limit` or `cursor`.
 */
export async function listVersions(
  store: AgentStore,
  accountId: string,
  agent: AgentRecord,
  options: PageOptions,
): Promise<AgentVersionList> {
  const limit = pageLimit(options.limit, 20);
  const before = decodeCursor(options.cursor);
  if (before === undefined) {
    // The newest version is the record's own (always there, also for a record kept before versions).
    const rest = limit > 1 ? await olderVersions(store, accountId, agent, agent.version, limit - 1) : undefined;
    const versions = [currentVersion(agent), ...(rest?.versions ?? [])];
    const next = rest ? rest.next : agent.version > 1 ? agent.version : null;
    return { versions, next_cursor: encodeCursor(next) };
  }
  const page = await olderVersions(store, accountId, agent, before, limit);
  return { versions: page.versions, next_cursor: encodeCursor(page.next) };
}

async function olderVersions(
  store: AgentStore,
  accountId: string,
  agent: AgentRecord,
  before: number,
  limit: number,
): Promise<{ versions: AgentVersion[]; next: number | null }> {
  const page = await store.listAgentVersions(accountId, agent.agent_id, {
    limit,
    before: Math.min(before, agent.version),
  });
  return { versions: page.versions.map(versionShape), next: page.next };
}

/**
 * Keeps the current configuration of a record stored before versions were kept as its version, so
 * that the next change does not lose it. A no-op (one read) for every other record.
 */
export async function keepCurrentVersion(store: AgentStore, accountId: string, agent: AgentRecord): Promise<void> {
  if (await store.getAgentVersion(accountId, agent.agent_id, agent.version)) return;
  await store.updateAgent(accountId, agent);
}
