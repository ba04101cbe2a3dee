import { randomBytes } from 'node:crypto';
import { findAgent, requireAccount } from '../../agents/find-agent.js';
import { OverloadedError } from '../../errors/overloaded-error.js';
import { decodeCursor, encodeCursor, type PageOptions, pageLimit } from '../../paging.js';
import type { BackgroundRun, RunEventRecord, RunList } from '../../records.js';
import type { RunAgentInput } from '../../schemas.js';
import type { ServiceSettings } from '../../service-options.js';
import { cancelRun } from './cancel-run.js';
import { EventReaders } from './event-readers.js';
import { type ActiveRun, launchRun } from './execute-run.js';
import { findRun } from './find-run.js';
import { type ReadOptions, readRunEvents } from './read-events.js';
import { RunSweeper } from './run-sweeper.js';
import { publicRun } from './run-views.js';
import { abandonRun, createRun } from './start-run.js';

/** How long past a lease `close` waits for stopped runs: the last retry of a finishing update. */
const FINISH_MARGIN_MS = 1000;

/** Resolves after `ms`, without holding the process open. */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const shuttingDown = () => new OverloadedError({ message: 'The server is shutting down; retry on another' });

/**
 * The background runs of one service: those it runs (under its own owner id), the sweeper that ends
 * lost servers' runs, and the reads and cancels of any run in the store. `AgentService` delegates to it.
 */
export class BackgroundRuns {
  /** This service's id as the owner of the runs it runs. */
  readonly owner = `srv_${randomBytes(12).toString('base64url')}`;
  readonly #settings: ServiceSettings;
  readonly #active = new Map<string, ActiveRun>();
  readonly #sweeper: RunSweeper;
  readonly #readers: EventReaders;
  #closed = false;

  constructor(settings: ServiceSettings) {
    this.#settings = settings;
    this.#readers = new EventReaders(settings.backgroundRuns.maxEventReaders);
    this.#sweeper = new RunSweeper({ ...settings.backgroundRuns, runs: settings.runs, now: settings.now });
    if (settings.runsGiven) this.#sweeper.start();
  }

  /** See `AgentService.startRun`. */
  async start(accountId: string, agentId: string, input: RunAgentInput, history: unknown): Promise<BackgroundRun> {
    requireAccount(accountId);
    if (this.#closed) throw shuttingDown();
    const run = await createRun(this.#settings, { accountId, agentId, input, history }, this.owner);
    // Closed while the run was being stored: close() did not see it, so nothing else would run or end it.
    if (this.#closed) {
      await abandonRun(this.#settings, run);
      throw shuttingDown();
    }
    this.#sweeper.start();
    // Copies: the run goes on after the caller returns, and must not see its later changes.
    launchRun(this.#settings, this.#active, run, { input: structuredClone(input), history: structuredClone(history) });
    return publicRun(run);
  }

  /** See `AgentService.getRun`. */
  async get(accountId: string, runId: string): Promise<BackgroundRun> {
    requireAccount(accountId);
    return publicRun(await findRun(this.#settings.runs, accountId, runId));
  }

  /** See `AgentService.listRuns`. */
  async list(accountId: string, agentId: string, options: PageOptions): Promise<RunList> {
    await findAgent(this.#settings.store, accountId, agentId);
    const limit = pageLimit(options.limit, 20);
    const before = decodeCursor(options.cursor);
    const page = await this.#settings.runs.listRuns(accountId, agentId, {
      limit,
      ...(before !== undefined && { before }),
    });
    return { runs: page.runs.map(publicRun), next_cursor: encodeCursor(page.next ?? null) };
  }

  /** See `AgentService.runEvents`. */
  async events(accountId: string, runId: string, options: ReadOptions): Promise<AsyncIterable<RunEventRecord>> {
    requireAccount(accountId);
    return this.#readers.open(accountId, options.signal, (signal) =>
      readRunEvents(this.#settings.runs, accountId, runId, { ...options, signal }),
    );
  }

  /** See `AgentService.cancelRun`. */
  async cancel(accountId: string, runId: string): Promise<BackgroundRun> {
    requireAccount(accountId);
    return publicRun(await cancelRun(this.#settings.runs, accountId, runId));
  }

  /** How many runs this service runs now, by status. */
  counts(): { queued: number; running: number } {
    const counts = { queued: 0, running: 0 };
    for (const run of this.#active.values()) counts[run.status]++;
    return counts;
  }

  /**
   * Ends the event readings open on this service, stops the sweeper, waits up to `graceMs` for this
   * service's runs, stops the rest (they end `failed`, `server_lost`) and waits for them to end,
   * a lease (and a second) at most; closes the run store when it made it.
   */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    this.#readers.close();
    await this.#sweeper.stop();
    const ended = () => Promise.all([...this.#active.values()].map((run) => run.done));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([ended(), grace]);
    clearTimeout(timer);
    for (const run of this.#active.values()) run.stop('shutdown');
    // A stopped run finishes within its lease, which it no longer renews; the sweepers end one that does not.
    await Promise.race([ended(), delay(this.#settings.backgroundRuns.leaseMs + FINISH_MARGIN_MS)]);
    if (!this.#settings.runsGiven) await this.#settings.runs.close?.();
  }
}
