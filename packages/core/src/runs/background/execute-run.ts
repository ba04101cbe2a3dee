import type { RunChange, RunStore, StoredRun } from '../../ports/run-store.js';
import type { RunAgentInput } from '../../schemas.js';
import type { ServiceSettings } from '../../service-options.js';
import { streamAgent } from '../stream-agent.js';
import { RunEventWriter } from './event-writer.js';
import { SERVER_LOST } from './lost-runs.js';
import { type RunEnding, runEnding, type StopReason, type TurnOutcome } from './run-ending.js';
import { RunLease } from './run-lease.js';
import { UNFINISHED_RUN_STATUSES } from './run-states.js';
import { errorEvent, expiryAt } from './run-views.js';
import { isLastEvent, lastStoredEvent } from './stored-events.js';

/** A background run this server runs: where it is, and how to stop it. */
export interface ActiveRun {
  readonly runId: string;
  status: 'queued' | 'running';
  /**
   * Stops the run: `lost` when it is no longer this server's (it then writes nothing more), else
   * the reason it ends with (the first one given).
   */
  stop(reason: StopReason | 'lost'): void;
  /** Settles once the run has ended (never rejects). */
  done: Promise<void>;
}

/** What the run was asked: its input and the history the caller sent. */
export interface RunAsk {
  input: RunAgentInput;
  history: unknown;
}

/** The state of a run in progress, which its parts share. */
interface RunState {
  controller: AbortController;
  reason: StopReason | undefined;
  lost: boolean;
  entry: ActiveRun;
}

/**
 * Runs a stored (`queued`) run in the background on this server, and returns it as active (it is
 * removed from `active` once it ended). See {@link executeRun}.
 */
export function launchRun(
  settings: ServiceSettings,
  active: Map<string, ActiveRun>,
  run: StoredRun,
  ask: RunAsk,
): ActiveRun {
  const controller = new AbortController();
  const stop = (reason: StopReason | 'lost') => {
    if (reason === 'lost') state.lost = true;
    else state.reason ??= reason;
    controller.abort(new Error(`The run was stopped (${reason})`));
  };
  const entry: ActiveRun = { runId: run.run_id, status: 'queued', stop, done: Promise.resolve() };
  const state: RunState = { controller, reason: undefined, lost: false, entry };
  active.set(run.run_id, entry);
  entry.done = executeRun(settings, run, ask, state)
    .catch(() => undefined)
    .finally(() => active.delete(run.run_id));
  return entry;
}

/**
 * A background run from start to end: listens for its cancel, keeps its lease, streams the turn
 * (whose events the writer stores as they come), then writes its last event and, only after every
 * event, the change that finishes it. A run that is no longer this server's writes nothing more.
 */
async function executeRun(settings: ServiceSettings, run: StoredRun, ask: RunAsk, state: RunState): Promise<void> {
  const { runs, backgroundRuns } = settings;
  const { entry } = state;
  const writer: RunEventWriter = new RunEventWriter(runs, run.run_id, {
    canWrite: (): boolean => !state.lost && lease.valid(),
    onStop: (reason) => entry.stop(reason),
  });
  const lease: RunLease = new RunLease(
    {
      runs,
      accountId: run.account_id,
      runId: run.run_id,
      until: run.lease_until,
      leaseMs: backgroundRuns.leaseMs,
      now: () => settings.now().getTime(),
      lastEventId: (): number => writer.lastId,
    },
    { onCancel: () => entry.stop('cancelled'), onLost: () => entry.stop('lost') },
  );
  const unsubscribe = await runs
    .subscribe(run.run_id, (signal) => signal.type === 'cancel' && entry.stop('cancelled'))
    .catch(() => async () => undefined);
  try {
    const outcome = await runTurn(settings, run, ask, state, writer);
    if (!state.lost) await finishRun(settings, run, runEnding(outcome, state.reason), { writer, lease, state });
  } finally {
    lease.stop();
    writer.stop();
    await unsubscribe().catch(() => undefined);
  }
}

/** The turn: takes the session, marks the run `running`, and hands each event to the writer. */
async function runTurn(
  settings: ServiceSettings,
  run: StoredRun,
  ask: RunAsk,
  state: RunState,
  writer: RunEventWriter,
): Promise<TurnOutcome> {
  try {
    const events = await streamAgent(settings, {
      accountId: run.account_id,
      agentId: run.agent_id,
      input: ask.input,
      history: ask.history,
      signal: state.controller.signal,
      sessionId: run.session_id,
    });
    const iterator = events[Symbol.asyncIterator]();
    try {
      await markRunning(settings, run, state);
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        writer.push(next.value);
        if (next.value.type === 'done') return { result: next.value.result };
      }
      return { error: new Error('The run ended without a result') };
    } finally {
      // Releases the session's lock when the events were not read to their end.
      await iterator.return?.();
    }
  } catch (error) {
    return { error };
  }
}

/**
 * Marks the run `running` once it took its session. A run that is no longer unfinished was ended by
 * another server (as lost): it stops, writing nothing; a cancel asked meanwhile stops it too.
 */
async function markRunning(settings: ServiceSettings, run: StoredRun, state: RunState): Promise<void> {
  const started = await settings.runs.updateRun(run.account_id, run.run_id, ['queued'], {
    status: 'running',
    started_at: settings.now().toISOString(),
  });
  if (!started) return state.entry.stop('lost');
  state.entry.status = 'running';
  if (started.cancel_requested) state.entry.stop('cancelled');
}

/**
 * Writes the run's last event (its `error`, when it failed), waits for every event to be stored,
 * then finishes the run, only while it is unfinished and this server's lease holds (no longer
 * renewed: finishing lasts a lease at most); tells every server it ended.
 */
async function finishRun(
  settings: ServiceSettings,
  run: StoredRun,
  ending: RunEnding,
  { writer, lease, state }: { writer: RunEventWriter; lease: RunLease; state: RunState },
): Promise<void> {
  // The lease is no longer renewed: finishing, retries and all, ends when it does.
  lease.hold();
  if (ending.error) writer.push(errorEvent(ending.error));
  await writer.flush();
  const mayWrite = () => !state.lost && lease.valid();
  if (!mayWrite()) return;
  const lastId = writer.stopped ? await closeStoppedEvents(settings.runs, run, ending, writer.lastId) : writer.lastId;
  const now = settings.now();
  const change: RunChange = {
    ...ending,
    finished_at: now.toISOString(),
    last_event_id: lastId,
    ...expiryAt(now.getTime(), settings.backgroundRuns),
  };
  const ended = await finishRecord(settings.runs, run, change, mayWrite);
  if (ended) await settings.runs.publish(run.run_id, { type: 'end' }).catch(() => undefined);
}

/**
 * The last event of a run whose writer stopped (a write failed): a write that failed may have been
 * stored all the same, so it looks at what is stored past the writer's last, and writes the run's
 * last event after that, unless one is there already; a refused write (a late one landed meanwhile)
 * is tried once more after another look, so that the record never names a last event before the
 * stored ones.
 * @returns the id of the run's last event. One that could not be stored is rebuilt from the record
 *   by its readers.
 */
async function closeStoppedEvents(runs: RunStore, run: StoredRun, ending: RunEnding, written: number): Promise<number> {
  const event = ending.result
    ? { type: 'done' as const, result: ending.result }
    : errorEvent(ending.error ?? SERVER_LOST);
  let id = written + 1;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const stored = await lastStoredEvent(runs, run.run_id, id - 1).catch(() => undefined);
    if (stored && isLastEvent(stored)) return stored.id;
    id = Math.max(stored?.id ?? 0, id - 1) + 1;
    if (await runs.appendEvents(run.run_id, [{ id, event }]).catch(() => false)) break;
  }
  return id;
}

/** The first wait before a failed finishing update is tried again, and the longest. */
const RETRY_MS = { first: 50, most: 1000 };

/**
 * The change that finishes a run, tried again with backoff after each failure as long as `mayWrite`
 * says (the lease holds): a run whose `done` is stored must not end as lost for want of a retry.
 * @returns the finished run, or `undefined` when it was no longer unfinished or this server may no longer write.
 */
async function finishRecord(
  runs: RunStore,
  run: StoredRun,
  change: RunChange,
  mayWrite: () => boolean,
): Promise<StoredRun | undefined> {
  for (let wait = RETRY_MS.first; mayWrite(); wait = Math.min(wait * 2, RETRY_MS.most)) {
    try {
      return await runs.updateRun(run.account_id, run.run_id, UNFINISHED_RUN_STATUSES, change);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  return undefined;
}
