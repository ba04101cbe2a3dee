import { API_BASE, ApiError, agentPath, errorMessage, type TurnMetadata } from './api';

/**
 * A background run the playground follows, with the answer's text so far. While it runs, the run
 * (without the text) is kept in this tab's sessionStorage, so that after a reload the tab reattaches
 * to it: it reads the run's events from the first (`GET /runs/{id}/events?after=0`), which rebuilds
 * the text.
 */
export interface FollowedRun {
  run_id: string;
  agent_id: string;
  session_id: string;
  /** The message that started it, shown again after a reload. */
  input: string;
  /** The id of the last event shown. */
  last_event_id: number;
  /** The answer's text so far (kept in the page only). */
  text: string;
}

/** What this tab keeps of a followed run for a reload: the run without its text. */
export type SavedRun = Omit<FollowedRun, 'text'>;

/** A run's result, as its `done` event carries it (the fields the playground shows). */
export interface FinishedTurn {
  output: string;
  session_id: string;
  status: 'completed' | 'requires_approval';
  metadata?: Omit<TurnMetadata, 'session_id'>;
}

/** How a followed run changed: more text, its end with a result, or its end with an error. */
export type RunUpdate =
  | { kind: 'text'; run: FollowedRun }
  | { kind: 'done'; run: FollowedRun; result: FinishedTurn }
  | { kind: 'error'; run: FollowedRun | undefined; message: string };

const STORAGE_KEY = 'agenthost.playground.backgroundRun';

const isSaved = (value: unknown): value is SavedRun => {
  const run = value as Partial<SavedRun> | null;
  return (
    typeof run === 'object' &&
    run !== null &&
    [run.run_id, run.agent_id, run.session_id, run.input].every((field) => typeof field === 'string') &&
    Number.isSafeInteger(run.last_event_id) &&
    (run.last_event_id ?? -1) >= 0
  );
};

/** The run this tab was following, if any (anything unreadable counts as none). */
export function loadFollowedRun(): SavedRun | undefined {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    return isSaved(value) ? value : undefined;
  } catch {
    // No storage (private windows, policies) or not JSON: nothing to reattach to.
    return undefined;
  }
}

/** Keeps the run (without its text) for a reload of this tab; forgets it when `undefined`. */
export function saveFollowedRun(run: FollowedRun | SavedRun | undefined): void {
  try {
    if (run) {
      const { run_id, agent_id, session_id, input, last_event_id } = run;
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ run_id, agent_id, session_id, input, last_event_id }));
    } else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // See loadFollowedRun: the run is then followed for as long as the page lasts.
  }
}

/** One server-sent event: its `id:` (absent on the `run` frame), its name and its JSON data. */
interface Frame {
  id: number | undefined;
  event: string;
  data: unknown;
}

function parseFrame(text: string): Frame | undefined {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    // A line starting with ":" is a comment (the server's heartbeat).
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).replace(/^ /, ''));
  }
  const data = fields.get('data');
  if (data === undefined) return undefined;
  const id = fields.get('id');
  return {
    id: id === undefined ? undefined : Number(id),
    event: fields.get('event') ?? 'message',
    data: JSON.parse(data),
  };
}

/** Calls `onFrame` for each server-sent event of `response`, until the stream ends. */
async function eachFrame(response: Response, onFrame: (frame: Frame) => void): Promise<void> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered = (buffered + value).replace(/\r\n/g, '\n');
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const frame = parseFrame(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      if (frame) onFrame(frame);
    }
  }
}

/**
 * Applies one event to the run: more text, or its end. Returns the update to show, or `'broken'` for
 * an `error` frame without an `id:`: not one of the run's events, but a reading that failed (the store
 * could not be reached), after which the reader reconnects with the last id.
 */
function applyFrame(run: FollowedRun, frame: Frame): RunUpdate | 'broken' | undefined {
  if (frame.event === 'error' && frame.id === undefined) return 'broken';
  if (frame.id !== undefined) run.last_event_id = frame.id;
  const data = frame.data as { delta?: unknown; error?: unknown };
  if (frame.event === 'text-delta' && typeof data.delta === 'string') run.text += data.delta;
  if (frame.event === 'done') return { kind: 'done', run, result: frame.data as FinishedTurn };
  if (frame.event === 'error')
    return { kind: 'error', run, message: typeof data.error === 'string' ? data.error : 'The run failed' };
  return frame.event === 'text-delta' ? { kind: 'text', run } : undefined;
}

/**
 * Follows a run's events in `response`: each is shown through `onUpdate` and remembered for a reload;
 * at the run's end it is forgotten. Resolves with whether the run ended (false: the stream broke off,
 * or the reading failed: read again after the last event shown).
 */
async function follow(
  response: Response,
  start: FollowedRun | undefined,
  onUpdate: (update: RunUpdate) => void,
  make: (data: unknown) => FollowedRun,
): Promise<boolean> {
  let run = start;
  let ended = false;
  let broken = false;
  await eachFrame(response, (frame) => {
    if (frame.event === 'run') run = make(frame.data);
    if (!run || ended || broken) return;
    const update = frame.event === 'run' ? ({ kind: 'text', run } as const) : applyFrame(run, frame);
    if (update === 'broken') {
      broken = true;
      return;
    }
    ended = update?.kind === 'done' || update?.kind === 'error';
    saveFollowedRun(ended ? undefined : run);
    if (update) onUpdate({ ...update, run: { ...run } });
  });
  return ended;
}

async function refused(response: Response): Promise<ApiError> {
  return new ApiError(errorMessage(await response.text(), response.status), response.status);
}

/**
 * Starts a background run that streams (`stream` and `background` true) and follows it.
 * @throws ApiError when the run is refused (a bad input, too many runs in flight...).
 */
export async function startBackgroundRun(
  apiKey: string,
  agentId: string,
  body: { input: string; session_id?: string; version?: number },
  onUpdate: (update: RunUpdate) => void,
  signal: AbortSignal,
): Promise<boolean> {
  const response = await fetch(`${API_BASE}${agentPath(agentId)}/run`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ ...body, stream: true, background: true }),
    signal,
  });
  if (!response.ok) throw await refused(response);
  return follow(response, undefined, onUpdate, (data) => {
    const run = data as { run_id: string; session_id: string };
    return {
      run_id: run.run_id,
      agent_id: agentId,
      session_id: run.session_id,
      input: body.input,
      last_event_id: 0,
      text: '',
    };
  });
}

/**
 * Reads a followed run's events after the last one shown, until its end.
 * @throws ApiError (404 when the run is gone: its record expired, or it belongs to another key's account).
 */
export async function reattachRun(
  apiKey: string,
  run: FollowedRun,
  onUpdate: (update: RunUpdate) => void,
  signal: AbortSignal,
): Promise<boolean> {
  const response = await fetch(`${API_BASE}/runs/${encodeURIComponent(run.run_id)}/events?after=${run.last_event_id}`, {
    headers: { 'x-api-key': apiKey, accept: 'text/event-stream' },
    signal,
  });
  if (!response.ok) throw await refused(response);
  return follow(response, { ...run }, onUpdate, () => run);
}
