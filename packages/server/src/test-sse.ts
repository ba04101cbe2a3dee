// Test support (not shipped): server-sent events read from a server, frame by frame.

/** One server-sent event: its `id:` (when it has one), its `event:` name and its JSON data. */
export interface SseFrame {
  id: number | undefined;
  event: string;
  data: any;
}

/** How {@link readFrames} asks and when it stops. */
export interface ReadFramesOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Stops reading (and goes away) once this says so for the frames so far; default: at the stream's end. */
  until?: (frames: SseFrame[]) => boolean;
  /** Gives up, throwing, after this long (default 60 s). */
  timeoutMs?: number;
}

/** A frame's text as an {@link SseFrame}; `undefined` for a comment (a heartbeat). */
function parseFrame(text: string): SseFrame | undefined {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith(':') || !line.includes(':')) continue;
    const colon = line.indexOf(':');
    fields.set(line.slice(0, colon), line.slice(colon + 1).replace(/^ /, ''));
  }
  if (!fields.has('data')) return undefined;
  const id = fields.get('id');
  return {
    id: id === undefined ? undefined : Number(id),
    event: fields.get('event') ?? 'message',
    data: JSON.parse(fields.get('data')!),
  };
}

/**
 * Reads the server-sent events at `url` with the API key: every frame until the stream ends, or until
 * `until` is satisfied (then the request is aborted, as a client that goes away).
 * @throws when the answer is not an event stream, or on the timeout.
 */
export async function readFrames(url: string, key: string, options: ReadFramesOptions = {}): Promise<SseFrame[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no end of ${url} in time`)), options.timeoutMs ?? 60_000);
  const frames: SseFrame[] = [];
  try {
    const response = await fetch(url, {
      method: options.method ?? 'GET',
      headers: {
        'x-api-key': key,
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      signal: controller.signal,
    });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
      throw new Error(`not an event stream: ${response.status} ${await response.text()}`);
    const decoder = new TextDecoderStream();
    const reader = response.body!.pipeThrough(decoder).getReader();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return frames;
      buffered += value;
      let end = buffered.indexOf('\n\n');
      while (end >= 0) {
        const frame = parseFrame(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
        if (frame) frames.push(frame);
        if (frame && options.until?.(frames)) {
          controller.abort();
          return frames;
        }
        end = buffered.indexOf('\n\n');
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
