import type { Response } from 'express';
import type { SseFrame } from './handlers.js';
import { keepLog } from './request-state.js';

/** How often a quiet stream gets a comment line, so that proxies do not close it. */
const HEARTBEAT_MS = 15_000;

/** Starts a server-sent event answer: its status and headers, sent at once. */
export function openEventStream(res: Response): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
}

/** One frame as server-sent event text: its `id:` line (when it has an id), `event:` and `data:`. */
export function eventText(frame: SseFrame): string {
  const id = frame.id === undefined ? '' : `id: ${frame.id}\n`;
  return `${id}event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}

/**
 * Answers with `frames` as server-sent events, with a heartbeat comment on a quiet stream, until the
 * frames end or the client goes away; then ends the answer.
 */
export async function writeEventStream(
  res: Response,
  frames: AsyncIterable<SseFrame>,
  options: { logContent?: boolean | undefined },
): Promise<void> {
  openEventStream(res);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  try {
    for await (const frame of frames) {
      if (res.destroyed) break;
      keepLog(res, frame.log, options.logContent);
      res.write(eventText(frame));
    }
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
}
