import { hash } from 'node:crypto';
import {
  ConflictError,
  checkEventBatch,
  isFinishedRun,
  type RunChange,
  type RunCondition,
  type RunEventRecord,
  type RunPage,
  type RunSignal,
  type RunStatus,
  type RunStore,
  type StoredRun,
} from '@agenthost/core';
import { storageCall } from '../deadline.js';
import { parseEvents, parseRun, parseScored, runFields } from './redis-run-codec.js';
import { APPEND_EVENTS, CREATE_RUN, UPDATE_RUN } from './redis-run-scripts.js';
import { RedisRunSignals, type RedisSubscriber } from './redis-run-signals.js';
import { changeEntries, checkNewRun, isCursor, isLimit } from './run-fields.js';

/** The command of a node-redis client that {@link RedisRunStore} uses. */
export interface RedisRunClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Options of {@link RedisRunStore}. */
export interface RedisRunStoreOptions {
  /** The connection's current client (it may be replaced when it stops answering). */
  client: () => RedisRunClient;
  /** Makes the unconnected client that subscribes to signals (`client.duplicate()`). */
  subscriber: () => RedisSubscriber;
  /** Prefix of every key and channel (the store's namespace). */
  namespace: string;
  /** Bound on each command, in ms (default 5 000). */
  commandTimeoutMs?: number;
  /** Called when a command misses its deadline (for example to replace the connection). */
  onTimeout?: () => void;
  /** Receives the subscribing connection's errors (default: ignored). */
  onError?: (error: unknown) => void;
}

/** A run and its score in a zset. */
type Scored = { run: StoredRun; score: number };

const digest = (...parts: string[]) => hash('sha256', JSON.stringify(parts), 'base64url');
const sha1 = (script: string) => hash('sha1', script, 'hex');
const SCRIPTS = new Map([CREATE_RUN, UPDATE_RUN, APPEND_EVENTS].map((script) => [script, sha1(script)]));

/**
 * The {@link RunStore} on Redis. Keys under the namespace `<ns>`:
 * - `<ns>:run:<run id>`: the run, a hash of its fields (each field's JSON);
 * - `<ns>:run-events:<run id>`: its events, a stream with the ids `<event id>-0`;
 * - `<ns>:runs:agent:<hash(account, agent)>`: the agent's runs, a zset by creation time (ms);
 * - `<ns>:runs:inflight:<hash(account)>`: the account's unfinished runs, a set;
 * - `<ns>:runs:leases`: every unfinished run, a zset by `lease_until`.
 *
 * Lua scripts make `createRun` (the limit check and the writes) and `updateRun` (the status and
 * account check and the change) single steps. A finished run's hash and stream expire by
 * themselves (`PEXPIREAT` at `expires_at` and `events_expire_at`), so `purge` has nothing to do;
 * listing drops the entries of expired runs it meets. Signals go over pub/sub on the channel
 * `<ns>:run:<run id>`, through one subscribing connection ({@link RedisRunSignals}).
 */
export class RedisRunStore implements RunStore {
  readonly #client: () => RedisRunClient;
  readonly #ns: string;
  readonly #timeoutMs: number;
  readonly #onTimeout: (() => void) | undefined;
  readonly #signals: RedisRunSignals;

  constructor(options: RedisRunStoreOptions) {
    this.#client = options.client;
    this.#ns = options.namespace;
    this.#timeoutMs = options.commandTimeoutMs ?? 5_000;
    this.#onTimeout = options.onTimeout;
    this.#signals = new RedisRunSignals({
      create: options.subscriber,
      commandTimeoutMs: this.#timeoutMs,
      onError: options.onError ?? (() => {}),
    });
  }

  async createRun(run: StoredRun, { maxInFlight }: { maxInFlight: number }): Promise<boolean> {
    const created = checkNewRun(run);
    const keys = [this.#run(run.run_id), this.#inflight(run.account_id), this.#leases(), this.#list(run)];
    const args = [String(maxInFlight), run.run_id, String(run.lease_until), String(created), this.#run('')];
    args.push(...runFields(run));
    const stored = Number(await this.#script(CREATE_RUN, keys, args));
    if (stored === -1) throw new ConflictError({ message: `A run ${run.run_id} exists already` });
    return stored === 1;
  }

  async getRun(accountId: string, runId: string): Promise<StoredRun | undefined> {
    const run = parseRun(await this.#send(['HGETALL', this.#run(runId)]));
    return run?.account_id === accountId ? run : undefined;
  }

  /** `before` and `next` are creation times (epoch ms); a page never splits the runs of one millisecond. */
  async listRuns(accountId: string, agentId: string, options: { limit: number; before?: number }): Promise<RunPage> {
    const { limit, before } = options;
    if (!isCursor(before) || !isLimit(limit)) return { runs: [] };
    const key = this.#list({ account_id: accountId, agent_id: agentId });
    const ofAccount = (run: StoredRun) => run.account_id === accountId;
    // One more than the page, to know whether there is a next one.
    const first = await this.#collect(key, before === undefined ? '+inf' : `(${before}`, limit + 1, ofAccount);
    const runs = (entries: Scored[]) => entries.map(({ run }) => run);
    if (first.length <= limit) return { runs: runs(first) };
    const last = first[limit - 1]!.score;
    if (first[limit]!.score !== last) return { runs: runs(first.slice(0, limit)), next: last };
    // The page ends inside a millisecond: it takes all of that millisecond's runs.
    const tied = parseScored(await this.#send(['ZREVRANGEBYSCORE', key, `${last}`, `${last}`, 'WITHSCORES']));
    const page = [...first.filter(({ score }) => score > last), ...(await this.#liveRuns(key, tied, ofAccount))];
    const older = await this.#collect(key, `(${last}`, 1, ofAccount);
    return older.length ? { runs: runs(page), next: last } : { runs: runs(page) };
  }

  async updateRun(
    accountId: string,
    runId: string,
    from: readonly RunStatus[],
    change: RunChange,
    condition: RunCondition = {},
  ): Promise<StoredRun | undefined> {
    const entries = changeEntries(change);
    const { leaseBefore } = condition;
    if (leaseBefore !== undefined && !Number.isFinite(leaseBefore)) return undefined;
    // A change that may finish the run also keeps its agent's list alive as long as the run.
    const mayFinish = entries.some(([field]) => field === 'status' || field === 'expires_at');
    const list = mayFinish ? await this.#listOf(accountId, runId) : undefined;
    if (mayFinish && !list) return undefined;
    const run = this.#run(runId);
    const keys = [run, this.#inflight(accountId), this.#leases(), this.#events(runId), list ?? run];
    const fields = entries.flatMap(([field, value]) => [field, JSON.stringify(value)]);
    const statuses = from.map((status) => JSON.stringify(status));
    const args = [JSON.stringify(accountId), runId, String(from.length), ...statuses, list ? '1' : '0'];
    const { eventsEndAt } = condition;
    if (eventsEndAt !== undefined && !Number.isSafeInteger(eventsEndAt)) return undefined;
    args.push(
      leaseBefore === undefined ? '' : String(leaseBefore),
      eventsEndAt === undefined ? '' : String(eventsEndAt),
    );
    args.push(...fields);
    return parseRun(await this.#script(UPDATE_RUN, keys, args));
  }

  async appendEvents(runId: string, events: readonly RunEventRecord[]): Promise<boolean> {
    checkEventBatch(runId, events);
    if (events.length === 0) return true;
    // Events are compared as their JSON: a retried append sends the same text.
    const args = events.flatMap(({ id, event }) => [String(id), JSON.stringify(event)]);
    return Number(await this.#script(APPEND_EVENTS, [this.#events(runId), this.#run(runId)], args)) === 1;
  }

  async readEvents(runId: string, after: number, limit: number): Promise<RunEventRecord[]> {
    if (!Number.isSafeInteger(after) || after < 0 || !isLimit(limit)) return [];
    const reply = await this.#send(['XRANGE', this.#events(runId), `${after + 1}-0`, '+', 'COUNT', String(limit)]);
    return parseEvents(reply);
  }

  async publish(runId: string, signal: RunSignal): Promise<void> {
    await this.#send(['PUBLISH', this.#run(runId), JSON.stringify(signal)]);
  }

  async subscribe(runId: string, listener: (signal: RunSignal) => void): Promise<() => Promise<void>> {
    return this.#signals.subscribe(this.#run(runId), (message) => {
      let signal: RunSignal;
      try {
        signal = JSON.parse(message) as RunSignal;
      } catch {
        return;
      }
      listener(signal);
    });
  }

  async expiredRuns(now: number, limit: number): Promise<StoredRun[]> {
    if (!isLimit(limit)) return [];
    const key = this.#leases();
    const found: StoredRun[] = [];
    for (;;) {
      const want = limit - found.length;
      const reply = await this.#send(['ZRANGEBYSCORE', key, '-inf', `(${now}`, 'WITHSCORES', 'LIMIT', '0', `${want}`]);
      const entries = parseScored(reply);
      // The zset follows each run's lease; an entry of a run that finished (or is gone) is stale.
      const live = await this.#liveRuns(key, entries, (run) => !isFinishedRun(run.status));
      found.push(...live.flatMap(({ run }) => (run.lease_until < now ? [run] : [])));
      // Stale entries were removed: another pass sees what lies behind them.
      if (entries.length < want || live.length === entries.length || found.length >= limit) return found;
    }
  }

  /** Nothing to do: a finished run's keys expire by themselves. */
  async purge(_now: number): Promise<void> {}

  async close(): Promise<void> {
    await this.#signals.close();
  }

  /** Up to `count` runs of zset `key` that `keep` accepts, from score `max` down, removing stale entries on the way. */
  async #collect(key: string, max: string, count: number, keep: (run: StoredRun) => boolean): Promise<Scored[]> {
    const found: Scored[] = [];
    while (found.length < count) {
      const want = count - found.length;
      // The runs found so far come first from `max` down: stale entries among them were removed.
      const command = ['ZREVRANGEBYSCORE', key, max, '-inf', 'WITHSCORES', 'LIMIT', `${found.length}`, `${want}`];
      const entries = parseScored(await this.#send(command));
      found.push(...(await this.#liveRuns(key, entries, keep)));
      if (entries.length < want) break;
    }
    return found;
  }

  /**
   * The runs of zset `entries` that `keep` accepts, in order; the entries of runs that are gone or
   * that it refuses are removed from the zset.
   */
  async #liveRuns(
    key: string,
    entries: { member: string; score: number }[],
    keep: (run: StoredRun) => boolean,
  ): Promise<Scored[]> {
    const runs = await Promise.all(entries.map(({ member }) => this.#send(['HGETALL', this.#run(member)])));
    const live: Scored[] = [];
    const stale: string[] = [];
    entries.forEach(({ member, score }, i) => {
      const run = parseRun(runs[i]);
      if (run && keep(run)) live.push({ run, score });
      else stale.push(member);
    });
    if (stale.length) await this.#send(['ZREM', key, ...stale]);
    return live;
  }

  /** The list key of the account's run `runId`, or `undefined` when there is no such run of the account. */
  async #listOf(accountId: string, runId: string): Promise<string | undefined> {
    const reply = await this.#send(['HMGET', this.#run(runId), 'account_id', 'agent_id']);
    const [account, agent] = Array.isArray(reply) ? reply : [];
    if (account !== JSON.stringify(accountId) || typeof agent !== 'string') return undefined;
    return this.#list({ account_id: accountId, agent_id: JSON.parse(agent) as string });
  }

  #run(runId: string): string {
    return `${this.#ns}:run:${runId}`;
  }

  #events(runId: string): string {
    return `${this.#ns}:run-events:${runId}`;
  }

  #list(run: Pick<StoredRun, 'account_id' | 'agent_id'>): string {
    return `${this.#ns}:runs:agent:${digest(run.account_id, run.agent_id)}`;
  }

  #inflight(accountId: string): string {
    return `${this.#ns}:runs:inflight:${digest(accountId)}`;
  }

  #leases(): string {
    return `${this.#ns}:runs:leases`;
  }

  /** Runs a script by its SHA-1, loading it when the server does not have it. */
  async #script(script: string, keys: string[], args: string[]): Promise<unknown> {
    const head = [String(keys.length), ...keys, ...args];
    return this.#call(async () => {
      const client = this.#client();
      try {
        return await client.sendCommand(['EVALSHA', SCRIPTS.get(script)!, ...head]);
      } catch (error) {
        if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
        return client.sendCommand(['EVAL', script, ...head]);
      }
    });
  }

  async #send(args: string[]): Promise<unknown> {
    return this.#call(() => this.#client().sendCommand(args));
  }

  /** Runs `work` within the command bound; any failure becomes a `StorageUnavailableError`. */
  #call<T>(work: () => Promise<T>): Promise<T> {
    return storageCall(work, this.#timeoutMs, this.#onTimeout);
  }
}
