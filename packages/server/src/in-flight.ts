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
  const running = new Set<Response>();
  let idle: (() => void) | undefined;
  const track: RequestHandler = function agentHostInFlight(_req, res, next) {
    // A request passing the tracker twice (an app that counts and mounts a host's router) is counted once.
    if (!running.has(res)) {
      running.add(res);
      res.once('close', () => {
        running.delete(res);
        if (running.size === 0) idle?.();
      });
    }
    next();
  };
  async function drain(deadlineMs: number, onDeadline?: () => void): Promise<number> {
    const drained = new Promise<void>((resolve) => {
      idle = resolve;
      if (running.size === 0) resolve();
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)));
    let aborted = 0;
    if ((await Promise.race([drained, deadline])) === 'deadline') {
      aborted = running.size;
      onDeadline?.();
      // Cutting the connections aborts their runs: a run stores its turn only if its model call finished.
      for (const res of running) res.socket?.destroy();
      // Unref'd: a library's process may end before it fires.
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    }
    clearTimeout(timer);
    return aborted;
  }
  return { track, drain };
}
