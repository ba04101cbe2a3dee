import { writeSync } from 'node:fs';
import { hostname } from 'node:os';

/** What {@link LineWriter} takes besides its file descriptor. */
export interface LineWriterOptions {
  /**
   * At most this many characters of lines wait to be written (the batch under way counted too); past
   * it, lines are dropped and counted until the queue drains. Default 16 MiB.
   */
  maxQueued?: number;
  /** At most this many characters go into one write. Default 1 MiB. */
  maxBatch?: number;
}

/** A sleep that blocks the thread, for the exit path only (no event loop runs then). */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** How long a full pipe is given before the next try: short, so a reader that keeps up is not held back. */
const RETRY_MS = 1;

/** Errors after which the descriptor will never take a line again: its reader is gone, or it is. */
const FOR_GOOD = new Set(['EPIPE', 'EBADF', 'ECONNRESET', 'ENOTCONN']);

/**
 * Lines made into one write: their bytes (what is left of them), their characters, whether some of
 * them went out, and the warning lines among them (how many, and how many dropped lines they tell of).
 */
interface Batch {
  bytes: Buffer;
  chars: number;
  started: boolean;
  warnings: number;
  warned: number;
}

/**
 * Log lines (a pino destination: `write(line)`) written to a file descriptor once a turn of the event
 * loop: the lines logged during a turn go out together in one `write`, in the loop's check phase, so
 * under load one system call carries many lines. The descriptor should not block (a pipe or socket
 * made non-blocking, a file): a full pipe (`EAGAIN`) or a partial write keeps the rest, in order, for
 * a try a millisecond later; a reader that is gone (`EPIPE`, `EBADF`, `ECONNRESET`, `ENOTCONN`) ends
 * the writing, and every later line is dropped; any other error (`ENOSPC`, `EIO`) drops that batch and
 * goes on, a line it cut ended by the next write. Past `maxQueued` characters waiting, lines are
 * dropped; a warning line (pino's shape) where they would have been says how many. {@link flushSync}
 * writes what is left for the process's exit, within its deadline; a line logged after it is written
 * at once or dropped.
 */
export class LineWriter {
  readonly #fd: number;
  readonly #maxQueued: number;
  readonly #maxBatch: number;
  #queue: string[] = [];
  /** For each queued line: 0, or for a warning line, how many dropped lines it tells of. */
  #warned: number[] = [];
  #queued = 0;
  /** What is left of the batch under way. */
  #rest: Batch | undefined;
  #scheduled = false;
  #retry: NodeJS.Timeout | undefined;
  #failed = false;
  /** After the exit's flush: no turn of the event loop comes, so a line is written at once or dropped. */
  #exiting = false;
  /** A write stopped in the middle of a line: the next one starts on a new line. */
  #cut = false;
  #dropped = 0;
  /** Lines dropped and not yet told of by a warning line. */
  #unreported = 0;
  #drained: (() => void)[] = [];

  constructor(fd: number, options: LineWriterOptions = {}) {
    this.#fd = fd;
    this.#maxQueued = options.maxQueued ?? 16 * 1024 * 1024;
    this.#maxBatch = options.maxBatch ?? 1024 * 1024;
  }

  /** How many lines were dropped: past the limit, in a failed write, or after the descriptor failed for good. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues a line for the end of this turn of the event loop. Never throws, never blocks. */
  write(line: string): boolean {
    if (this.#failed) {
      this.#drop(1);
      return true;
    }
    if (this.#queued + (this.#rest?.chars ?? 0) + line.length > this.#maxQueued) this.#drop(1);
    else {
      // Lines were dropped just before this one: the warning goes where they were.
      if (this.#unreported > 0) this.#enqueueWarning();
      this.#enqueue(line, 0);
    }
    if (this.#exiting) this.flushSync(0);
    else if (!this.#scheduled && !this.#retry) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#flush();
      });
    }
    return true;
  }

  /**
   * Resolves once every line queued so far is written (or dropped), or after `timeoutMs`; until then,
   * it keeps the process alive.
   */
  drain(timeoutMs: number): Promise<void> {
    if (this.#idle() && !this.#scheduled && !this.#retry) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#drained.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Writes what is left, synchronously, for the process's exit: the rest of the batch under way, then
   * the queued lines. A full pipe is tried again until `timeoutMs` has passed; then, or on an error,
   * what is left is dropped.
   */
  flushSync(timeoutMs: number): void {
    this.#exiting = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    const deadline = Date.now() + timeoutMs;
    while (!this.#idle()) {
      if (this.#writeSome()) continue;
      if (this.#failed || Date.now() >= deadline) this.#dropAll();
      else blockFor(RETRY_MS);
    }
    for (const done of this.#drained.splice(0)) done();
  }

  #idle(): boolean {
    return this.#failed || (this.#rest === undefined && this.#queue.length === 0);
  }

  #enqueue(line: string, warned: number): void {
    this.#queue.push(line);
    this.#warned.push(warned);
    this.#queued += line.length;
  }

  /** The check phase's write: as much as the descriptor takes now; the rest a few milliseconds later. */
  #flush(): void {
    this.#retry = undefined;
    if (this.#unreported > 0 && !this.#failed) this.#enqueueWarning();
    while (!this.#idle()) {
      if (this.#writeSome()) continue;
      if (!this.#failed) this.#retry = setTimeout(() => this.#flush(), RETRY_MS).unref();
      break;
    }
    if (this.#idle()) for (const done of this.#drained.splice(0)) done();
  }

  /**
   * One write of the batch under way (made from the queue when there is none). True when the batch is
   * done with (written, or dropped for an error), false when the rest must wait (a full pipe, a partial
   * write) or the descriptor failed for good.
   */
  #writeSome(): boolean {
    const rest = this.#rest ?? this.#nextBatch();
    this.#rest = rest;
    try {
      const written = writeSync(this.#fd, rest.bytes);
      if (written === rest.bytes.length) {
        this.#rest = undefined;
        return true;
      }
      this.#rest = { ...rest, bytes: rest.bytes.subarray(written), started: rest.started || written > 0 };
      return false;
    } catch (error) {
      const failure = error as NodeJS.ErrnoException;
      if (failure.code === 'EAGAIN') return false;
      this.#dropRest();
      if (!FOR_GOOD.has(failure.code ?? '')) return true;
      this.#dropAll();
      return false;
    }
  }

  /** The next batch: queued lines up to `maxBatch` characters (at least one), after a new line if the last write was cut. */
  #nextBatch(): Batch {
    const newLine = this.#cut ? '\n' : '';
    this.#cut = false;
    let chars = 0;
    let taken = 0;
    while (taken < this.#queue.length && (taken === 0 || chars + this.#queue[taken]!.length <= this.#maxBatch))
      chars += this.#queue[taken++]!.length;
    const lines = this.#queue.splice(0, taken);
    const warned = this.#warned.splice(0, taken).filter((count) => count > 0);
    this.#queued -= chars;
    return {
      bytes: Buffer.from(newLine + lines.join('')),
      chars,
      started: false,
      warnings: warned.length + (newLine ? 1 : 0),
      warned: warned.reduce((sum, count) => sum + count, 0),
    };
  }

  /** Queues one warning line (pino's shape) saying how many lines were dropped since the last one. */
  #enqueueWarning(): void {
    const count = this.#unreported;
    const msg = `${count} log line(s) dropped: the log could not be written as fast as lines came`;
    this.#unreported = 0;
    this.#enqueue(
      `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, hostname: hostname(), msg })}\n`,
      count,
    );
  }

  /** The batch under way is dropped: the lines it had not written in whole are counted, and a cut line ended. */
  #dropRest(): void {
    const rest = this.#rest;
    this.#rest = undefined;
    if (!rest) return;
    let ends = 0;
    for (let at = rest.bytes.indexOf(10); at !== -1; at = rest.bytes.indexOf(10, at + 1)) ends++;
    // Of a batch that went out in part, which lines were its warnings is not known: counted as log lines.
    this.#drop(rest.started ? ends : ends - rest.warnings);
    if (!this.#failed) this.#unreported += rest.started ? 0 : rest.warned;
    if (rest.started) this.#cut = true;
  }

  #drop(lines: number): void {
    this.#dropped += lines;
    if (!this.#failed) this.#unreported += lines;
  }

  /** The exit's deadline passed, or the descriptor failed: what is left is dropped. */
  #dropAll(): void {
    this.#dropRest();
    this.#drop(this.#warned.filter((count) => count === 0).length);
    this.#queue = [];
    this.#warned = [];
    this.#queued = 0;
    this.#failed = true;
  }
}

/**
 * Standard error as a {@link LineWriter} for a process of its own (`agenthost serve`). What is left
 * when the process exits, however it exits, is written then, for at most `exitFlushMs`.
 */
export function nonBlockingLines(exitFlushMs = 1000): LineWriter {
  // Reading process.stderr makes Node open its descriptor as a stream, which puts a pipe or socket in
  // non-blocking mode (libuv): a write to a reader that stopped reading then fails with EAGAIN instead
  // of stopping the process. A terminal stays blocking, as a terminal's writes are.
  void process.stderr;
  const lines = new LineWriter(2);
  process.once('exit', () => lines.flushSync(exitFlushMs));
  return lines;
}
