import type { RequestHandler, Response } from 'express';

/** Counts the requests a host is answering, so a shutdown knows when the last one has finished. */
export interface InFlight {
  /** Middleware: counts the request until its response closes. */
  track: RequestHandler;
  /**
   * Waits until no request is in flight or `deadlineMs` passes; then cuts the connections of the
   * requests still running (which aborts their runs). Resolves with how many were cut off.
   */
  drain(deadlineMs: number, onDeadline?: () => void): Promise<number>;
}

/** A fresh {@link InFlight}. */
export function inFlight(): InFlight {
  // The responses in flight sit in slots reused through a free list, not in a Set. A Set that gains and
  // loses an entry on every request replaces its table again and again, and V8 allocates the new table
  // in the old generation once the table it replaces is there; each replaced table still holds the
  // responses it held, and young-generation collections take whatever the old generation points to
  // as alive. Once it starts (a table that outlived two young collections, as after an idle moment),
  // nearly every request's objects survive young collections and are promoted (measured on GETs:
  // young collections ten times longer, a full collection every second, a fifth fewer requests served).
  // The slot of a response is kept on it, under this tracker's own symbol: a response passing the
  // tracker twice is counted once.
  const SLOT = Symbol('agenthost.inFlightSlot');
  const slots: (Response | undefined)[] = [];
  const free: number[] = [];
  let running = 0;
  let idle: (() => void) | undefined;
  const track: RequestHandler = function agentHostInFlight(_req, res, next) {
    const tracked = res as Response & { [SLOT]?: number };
    if (tracked[SLOT] === undefined) {
      const slot = free.pop() ?? slots.length;
      slots[slot] = res;
      tracked[SLOT] = slot;
      running++;
      res.once('close', () => {
        slots[slot] = undefined;
        free.push(slot);
        running--;
        if (running === 0) idle?.();
      });
    }
    next();
  };
  async function drain(deadlineMs: number, onDeadline?: () => void): Promise<number> {
    const drained = new Promise<void>((resolve) => {
      idle = resolve;
      if (running === 0) resolve();
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)));
    let aborted = 0;
    if ((await Promise.race([drained, deadline])) === 'deadline') {
      aborted = running;
      onDeadline?.();
      // Cutting the connections aborts their runs: a run stores its turn only if its model call finished.
      for (const res of slots) res?.socket?.destroy();
      // Unref'd: a library's process may end before it fires.
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    }
    clearTimeout(timer);
    return aborted;
  }
  return { track, drain };
}
