import { EventEmitter } from 'node:events';
import type { RunChange, RunCondition, RunPage, RunSignal, RunStore, StoredRun } from '../../ports/run-store.js';
import type { RunEventRecord, RunStatus } from '../../records.js';
import { checkEventBatch, eventsToStore, finishedRunEnd } from './event-batch.js';
import { isFinishedRun } from './run-states.js';

/** Newest first: by creation time, then by id. */
function newestFirst(a: StoredRun, b: StoredRun): number {
  const byTime = Date.parse(b.created_at) - Date.parse(a.created_at);
  return byTime !== 0 ? byTime : b.run_id < a.run_id ? -1 : b.run_id > a.run_id ? 1 : 0;
}

/** Options of {@link InProcessRunStore}. */
export interface InProcessRunStoreOptions {
  /**
   * Finished runs kept at most (default 10 000): past that, the run that finished first is dropped
   * with its events, whatever its retention, so that memory stays bounded. Unfinished runs are never
   * dropped (the in-flight limit bounds them).
   */
  maxFinishedRuns?: number;
}

/** A set in a map of sets, made on first use and dropped once empty. */
function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key) ?? new Set<string>();
  map.set(key, set.add(id));
}
function removeFrom(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key);
  if (set?.delete(id) && set.size === 0) map.delete(key);
}

/**
 * A {@link RunStore} in this process's memory: the default of `AgentService`, and the run store of
 * every store kept in one process. Records go in and out as copies, so no caller can change what is
 * stored; signals go through an `EventEmitter`; `purge` drops what is past its retention. Runs are
 * indexed by agent (listing) and, while unfinished, by account (the in-flight limit, lost runs), so
 * no call scans every run; at most `maxFinishedRuns` finished runs are kept.
 */
export class InProcessRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();
  readonly #events = new Map<string, RunEventRecord[]>();
  readonly #signals = new EventEmitter().setMaxListeners(0);
  /** Run ids by account and agent. */
  readonly #byAgent = new Map<string, Set<string>>();
  /** Unfinished run ids by account. */
  readonly #unfinished = new Map<string, Set<string>>();
  /** Finished run ids, in the order they finished. */
  readonly #finished = new Set<string>();
  readonly #maxFinished: number;

  /** @throws TypeError for a `maxFinishedRuns` that is not a whole number from 1. */
  constructor(options: InProcessRunStoreOptions = {}) {
    const max = options.maxFinishedRuns ?? 10_000;
    if (!Number.isSafeInteger(max) || max < 1)
      throw new TypeError(`InProcessRunStore: maxFinishedRuns must be a whole number from 1, got ${max}`);
    this.#maxFinished = max;
  }

  /** @throws Error when a run with the same id exists. */
  async createRun(run: StoredRun, { maxInFlight }: { maxInFlight: number }): Promise<boolean> {
    if (this.#runs.has(run.run_id)) throw new Error(`A run with the id ${run.run_id} exists`);
    if ((this.#unfinished.get(run.account_id)?.size ?? 0) >= maxInFlight) return false;
    const stored = structuredClone(run);
    this.#runs.set(run.run_id, stored);
    this.#events.set(run.run_id, []);
    addTo(this.#byAgent, agentKey(run), run.run_id);
    this.#track(stored);
    return true;
  }

  async getRun(accountId: string, runId: string): Promise<StoredRun | undefined> {
    const run = this.#runs.get(runId);
    return run?.account_id === accountId ? structuredClone(run) : undefined;
  }

  /**
   * `before` and `next` are creation times (epoch ms): a page holds runs created before `before`,
   * and never splits the runs of one millisecond (it holds them all, past `limit` if need be), so
   * the next page starts exactly where it ended.
   */
  async listRuns(
    accountId: string,
    agentId: string,
    { limit, before }: { limit: number; before?: number },
  ): Promise<RunPage> {
    const ids = this.#byAgent.get(agentKey({ account_id: accountId, agent_id: agentId })) ?? [];
    const older = [...ids]
      .map((id) => this.#runs.get(id)!)
      .filter((r) => before === undefined || Date.parse(r.created_at) < before)
      .sort(newestFirst);
    let end = Math.min(limit, older.length);
    const last = older[end - 1];
    while (last && end < older.length && older[end]?.created_at === last.created_at) end++;
    const runs = older.slice(0, end).map((r) => structuredClone(r));
    return end < older.length && last ? { runs, next: Date.parse(last.created_at) } : { runs };
  }

  async updateRun(
    accountId: string,
    runId: string,
    from: readonly RunStatus[],
    change: RunChange,
    condition: RunCondition = {},
  ): Promise<StoredRun | undefined> {
    const run = this.#runs.get(runId);
    if (run?.account_id !== accountId || !from.includes(run.status)) return undefined;
    if (condition.leaseBefore !== undefined && !(run.lease_until < condition.leaseBefore)) return undefined;
    // Events that expired are gone: none are stored.
    if (condition.eventsEndAt !== undefined && (this.#events.get(runId)?.length ?? 0) !== condition.eventsEndAt)
      return undefined;
    Object.assign(run, structuredClone(change));
    const copy = structuredClone(run);
    this.#track(run);
    return copy;
  }

  async appendEvents(runId: string, events: readonly RunEventRecord[]): Promise<boolean> {
    checkEventBatch(runId, events);
    const run = this.#runs.get(runId);
    // A run whose events expired has none to go on from.
    const stored = this.#events.get(runId);
    if (!run || !stored) return false;
    // Ids run 1, 2, 3...: the event of id n is at n - 1.
    const held = stored.slice((events[0]?.id ?? 1) - 1).map((e) => JSON.stringify(e.event));
    const fresh = eventsToStore(events, { last: stored.length, held, ...finishedRunEnd(run) });
    if (!fresh) return false;
    stored.push(...structuredClone(fresh));
    return true;
  }

  async readEvents(runId: string, after: number, limit: number): Promise<RunEventRecord[]> {
    const stored = this.#events.get(runId) ?? [];
    const from = stored.findIndex((e) => e.id > after);
    return from < 0 ? [] : structuredClone(stored.slice(from, from + limit));
  }

  async publish(runId: string, signal: RunSignal): Promise<void> {
    this.#signals.emit(runId, structuredClone(signal));
  }

  /** A listener that throws is ignored: it cannot stop the others or the publisher. */
  async subscribe(runId: string, listener: (signal: RunSignal) => void): Promise<() => Promise<void>> {
    const safe = (signal: RunSignal) => {
      try {
        listener(structuredClone(signal));
      } catch {
        // A listener's own failure is its own.
      }
    };
    this.#signals.on(runId, safe);
    return async () => {
      this.#signals.off(runId, safe);
    };
  }

  async expiredRuns(now: number, limit: number): Promise<StoredRun[]> {
    return [...this.#unfinished.values()]
      .flatMap((ids) => [...ids].map((id) => this.#runs.get(id)!))
      .filter((r) => r.lease_until < now)
      .sort((a, b) => a.lease_until - b.lease_until)
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  async purge(now: number): Promise<void> {
    for (const runId of this.#finished) {
      const run = this.#runs.get(runId)!;
      if (run.expires_at !== null && run.expires_at <= now) this.#drop(run);
      else if (run.events_expire_at !== null && run.events_expire_at <= now) this.#events.delete(runId);
    }
  }

  /** Forgets every subscription. */
  async close(): Promise<void> {
    this.#signals.removeAllListeners();
  }

  /** Keeps the indexes in step with the run's status; drops the oldest finished runs past the cap. */
  #track(run: StoredRun): void {
    if (!isFinishedRun(run.status)) {
      this.#finished.delete(run.run_id);
      addTo(this.#unfinished, run.account_id, run.run_id);
      return;
    }
    removeFrom(this.#unfinished, run.account_id, run.run_id);
    this.#finished.add(run.run_id);
    for (const oldest of this.#finished) {
      if (this.#finished.size <= this.#maxFinished) break;
      this.#drop(this.#runs.get(oldest)!);
    }
  }

  /** Forgets a finished run and its events. */
  #drop(run: StoredRun): void {
    this.#runs.delete(run.run_id);
    this.#events.delete(run.run_id);
    this.#finished.delete(run.run_id);
    removeFrom(this.#byAgent, agentKey(run), run.run_id);
  }
}

/** The key of an account's agent in the listing index. */
function agentKey(run: Pick<StoredRun, 'account_id' | 'agent_id'>): string {
  return JSON.stringify([run.account_id, run.agent_id]);
}
