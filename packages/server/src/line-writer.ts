import { writeSync } from 'node:fs';

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

/** How long a full pipe is given before the next try. */
const RETRY_MS = 5;

/** Errors after which the descriptor will never take a line again: its reader is gone, or it is. */
const FOR_GOOD = new Set(['EPIPE', 'EBADF', 'ECONNRESET', 'ENOTCONN']);

/** Lines made into one write: their bytes (what is left of them), characters and count. */
interface Batch {
  bytes: Buffer;
  chars: number;
  lines: number;
}

/**
 * Log lines (a pino destination: `write(line)`) written to a file descriptor once a turn of the event
 * loop: the lines logged during a turn go out together in one `write`, in the loop's check phase, so
 * under load one system call carries many lines. The descriptor should not block (a pipe or socket
 * made non-blocking, a file): a full pipe (`EAGAIN`) or a partial write keeps the rest, in order, for
 * a try a few milliseconds later; a reader that is gone (`EPIPE`, `EBADF`) ends the writing, and every
 * later line is dropped; any other error (`ENOSPC`, `EIO`) drops that batch and goes on. Past
 * `maxQueued` characters waiting, lines are dropped; how many is said by a warning line (pino's shape)
 * at the head of the next write. {@link flushSync} writes what is left for the process's exit, within
 * its deadline.
 */
export class LineWriter {
  readonly #fd: number;
  readonly #maxQueued: number;
  readonly #maxBatch: number;
  #queue: string[] = [];
  #queued = 0;
  /** What is left of the batch under way: its bytes not yet written, and the characters and lines it came from. */
  #rest: Batch | undefined;
  #scheduled = false;
  #retry: NodeJS.Timeout | undefined;
  #failed = false;
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
    if (this.#failed || this.#queued + (this.#rest?.chars ?? 0) + line.length > this.#maxQueued) {
      this.#drop(1);
      return true;
    }
    this.#queue.push(line);
    this.#queued += line.length;
    if (!this.#scheduled && !this.#retry) {
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
    if (this.#idle()) return Promise.resolve();
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
    return this.#failed || (this.#rest === undefined && this.#queue.length === 0 && this.#unreported === 0);
  }

  /** The check phase's write: as much as the descriptor takes now; the rest a few milliseconds later. */
  #flush(): void {
    this.#retry = undefined;
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
      this.#rest = { ...rest, bytes: rest.bytes.subarray(written) };
      return false;
    } catch (error) {
      const failure = error as NodeJS.ErrnoException;
      if (failure.code === 'EAGAIN') return false;
      this.#rest = undefined;
      this.#drop(rest.lines);
      if (!FOR_GOOD.has(failure.code ?? '')) return true;
      this.#dropAll();
      return false;
    }
  }

  /** The next batch: a warning for lines dropped, if any, then queued lines up to `maxBatch` characters. */
  #nextBatch(): Batch {
    const warning = this.#unreported > 0 ? this.#warning() : '';
    let chars = 0;
    let taken = 0;
    while (taken < this.#queue.length && (taken === 0 || chars + this.#queue[taken]!.length <= this.#maxBatch))
      chars += this.#queue[taken++]!.length;
    const lines = this.#queue.splice(0, taken);
    this.#queued -= chars;
    return { bytes: Buffer.from(warning + lines.join('')), chars, lines: taken };
  }

  /** One warning line (pino's shape) saying how many lines were dropped since the last one. */
  #warning(): string {
    const msg = `${this.#unreported} log line(s) dropped: the log could not be written as fast as lines came`;
    this.#unreported = 0;
    return `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg })}\n`;
  }

  #drop(lines: number): void {
    this.#dropped += lines;
    if (!this.#failed) this.#unreported += lines;
  }

  /** The exit's deadline passed, or the descriptor failed: what is left is dropped. */
  #dropAll(): void {
    this.#drop(this.#queue.length + (this.#rest?.lines ?? 0));
    this.#queue = [];
    this.#queued = 0;
    this.#rest = undefined;
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
