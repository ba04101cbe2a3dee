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
  // The responses in flight sit in slots of an array reused through a free list, not in a Set. A Set
  // that gains and loses an entry on every request copies its table into a new one again and again;
  // once its table is in V8's old generation, so is each copy, and each replaced table still holds the
  // responses it held. Young-generation collections take what the old generation points to as alive,
  // so from then on nearly every request's objects survive them and are promoted (measured on GETs:
  // young collections ten times longer, a full collection every second).
  //
  // A response's slot is kept on it under this tracker's own symbol: a request that passes the tracker
  // twice (an app that counts its requests and mounts a host's router) is counted once, and another
  // tracker counts it too.
  const SLOT = Symbol('agenthost.inFlightSlot');
  const slots: (Response | undefined)[] = [];
  const free: number[] = [];
  let running = 0;
  let idle: (() => void) | undefined;
  const track: RequestHandler = function agentHostInFlight(_req, res, next) {
    const tracked = res as Response & { [SLOT]?: number };
    // A response already closed (its client went while an app's own middleware awaited) would never
    // see the `close` that frees its slot.
    if (tracked[SLOT] === undefined && !res.closed) {
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
