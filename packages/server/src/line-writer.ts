import { write, writeSync } from 'node:fs';

/** What {@link LineWriter} takes besides its file descriptor. */
export interface LineWriterOptions {
  /** Lines queued beyond this many characters are dropped (and counted) until the queue drains. Default 16 MiB. */
  maxQueued?: number;
}

/** A sleep that blocks the thread, for the exit path only (no event loop runs then). */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** How long {@link LineWriter.flushSync} waits between tries of a full pipe. */
const RETRY_MS = 5;

/**
 * Log lines (a pino destination: `write(line)`) written to a file descriptor off the main thread: one
 * `fs.write` at a time, in the thread pool, and the lines logged meanwhile together in the next one, so
 * under load a few writes carry many lines. A full pipe (`EAGAIN`) is tried again; any other write
 * error (`EPIPE`: its reader is gone) ends the writing, and later lines are dropped: the process goes on.
 * A reader that stops reading does not make the queue grow without bound: past `maxQueued` characters,
 * lines are dropped and counted until it drains. What is still queued at exit is written by
 * {@link flushSync}, which gives up after its deadline or on any error but `EAGAIN`, so a process never
 * stays alive for its logs.
 */
export class LineWriter {
  readonly #fd: number;
  readonly #maxQueued: number;
  #queue: string[] = [];
  #queued = 0;
  /** Whether a write is under way, and how many lines it carries. */
  #writing = false;
  #writingLines = 0;
  /** The rest of the write under way while it waits to be tried again (a full pipe), and its timer. */
  #retry: { bytes: Buffer; timer: NodeJS.Timeout } | undefined;
  #failed = false;
  #dropped = 0;
  /** Lines dropped for a full queue and not yet reported by a line of their own. */
  #unreported = 0;
  #drained: (() => void)[] = [];

  constructor(fd: number, options: LineWriterOptions = {}) {
    this.#fd = fd;
    this.#maxQueued = options.maxQueued ?? 16 * 1024 * 1024;
  }

  /** How many lines were dropped: queued past the limit, or in or after a failed write. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues a line; starts a write unless one is under way. Never throws, never blocks. */
  write(line: string): boolean {
    if (this.#failed) {
      this.#dropped++;
      return true;
    }
    if (this.#queued + line.length > this.#maxQueued) {
      this.#dropped++;
      this.#unreported++;
      return true;
    }
    this.#queue.push(line);
    this.#queued += line.length;
    if (!this.#writing) this.#next();
    return true;
  }

  /**
   * Resolves once every line queued so far is written (or the writing failed), or after `timeoutMs`;
   * until then, it keeps the process alive.
   */
  drain(timeoutMs: number): Promise<void> {
    if (!this.#writing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#drained.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Writes what is left, synchronously, for the process's exit: the rest of a write that waits to be
   * tried again, then the queued lines. A full pipe is tried again until `timeoutMs` has passed, any
   * other error ends it. A write under way in the thread pool (a blocking descriptor) may land after
   * these lines, or not at all if the process ends first.
   */
  flushSync(timeoutMs: number): void {
    if (this.#failed) return;
    let lines = this.#queue.length;
    let bytes = this.#take();
    if (this.#retry) {
      clearTimeout(this.#retry.timer);
      bytes = Buffer.concat([this.#retry.bytes, bytes]);
      lines += this.#writingLines;
      this.#retry = undefined;
      this.#writing = false;
    }
    const deadline = Date.now() + timeoutMs;
    while (bytes.length > 0) {
      try {
        bytes = bytes.subarray(writeSync(this.#fd, bytes));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() >= deadline) {
          this.#fail(lines);
          return;
        }
        blockFor(RETRY_MS);
      }
    }
    if (!this.#writing) for (const done of this.#drained.splice(0)) done();
  }

  /** The queued lines as one buffer; the queue empties. */
  #take(): Buffer {
    const bytes = Buffer.from(this.#queue.join(''));
    this.#queue = [];
    this.#queued = 0;
    return bytes;
  }

  #next(): void {
    if (this.#queue.length === 0 && this.#unreported > 0) this.#reportDropped();
    if (this.#queue.length === 0) {
      this.#writing = false;
      for (const done of this.#drained.splice(0)) done();
      return;
    }
    this.#writing = true;
    this.#writingLines = this.#queue.length;
    this.#send(this.#take());
  }

  #send(bytes: Buffer): void {
    write(this.#fd, bytes, 0, bytes.length, null, (error, written) => {
      if (error?.code === 'EAGAIN') return this.#retryLater(bytes);
      if (error) {
        this.#fail(this.#writingLines);
        return this.#next();
      }
      if (written < bytes.length) return this.#send(bytes.subarray(written));
      this.#next();
    });
  }

  /** Once the queue is empty again: one warning line (pino's shape) saying how many lines were dropped. */
  #reportDropped(): void {
    const msg = `${this.#unreported} log line(s) dropped: more than ${this.#maxQueued} characters waited to be written`;
    this.#unreported = 0;
    this.#queue.push(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg })}\n`);
  }

  /** A full pipe: the rest of the write is tried again soon. Unref'd: it alone does not keep the process alive (flushSync writes the rest at exit). */
  #retryLater(bytes: Buffer): void {
    const timer = setTimeout(() => {
      this.#retry = undefined;
      this.#send(bytes);
    }, RETRY_MS).unref();
    this.#retry = { bytes, timer };
  }

  /** Writing failed: drop the `lost` lines of the failed write, what is queued, and every line from now on. */
  #fail(lost: number): void {
    this.#failed = true;
    this.#dropped += lost + this.#queue.length;
    this.#queue = [];
    this.#queued = 0;
  }
}

/**
 * Standard error as a {@link LineWriter} for a process of its own (`agenthost serve`): what is queued
 * when the process exits, however it exits, is written then, for at most `exitFlushMs`.
 */
export function nonBlockingLines(fd = 2, exitFlushMs = 1000): LineWriter {
  const lines = new LineWriter(fd);
  process.once('exit', () => lines.flushSync(exitFlushMs));
  return lines;
}
