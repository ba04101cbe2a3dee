import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import {
  type FollowedRun,
  loadFollowedRun,
  type RunUpdate,
  reattachRun,
  type SavedRun,
  saveFollowedRun,
  startBackgroundRun,
} from './background-run';

const STORAGE_KEY = 'agenthost.playground.backgroundRun';
let stored: Map<string, string>;
let requests: { url: string; init: RequestInit }[];

/** A fetch that answers with `chunks` as an event stream (or `status` with a JSON error). */
function answer(chunks: string[], status = 200) {
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    requests.push({ url, init });
    if (status !== 200) return new Response(JSON.stringify({ success: false, error: 'Run not found' }), { status });
    const body = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  });
}

beforeEach(() => {
  stored = new Map();
  requests = [];
  vi.stubGlobal('sessionStorage', {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => stored.set(key, value),
    removeItem: (key: string) => stored.delete(key),
  });
});
afterEach(() => vi.unstubAllGlobals());

const run: FollowedRun = {
  run_id: 'run_1',
  agent_id: 'agt_1',
  session_id: 'ses_1',
  input: 'hello',
  last_event_id: 2,
  text: 'He',
};
/** What is kept of `run` for a reload: everything but its text. */
const { text: _text, ...saved } = run;

test('a followed run is kept without its text and read back; anything else stored counts as none', () => {
  saveFollowedRun(run);
  expect(JSON.parse(stored.get(STORAGE_KEY)!)).toStrictEqual(saved);
  expect(loadFollowedRun()).toStrictEqual(saved);
  for (const bad of ['not json', '{"run_id": 1}', JSON.stringify({ ...saved, last_event_id: -1 }), 'null']) {
    stored.set(STORAGE_KEY, bad);
    expect(loadFollowedRun()).toBeUndefined();
  }
  saveFollowedRun(undefined);
  expect(stored.has(STORAGE_KEY)).toBe(false);
});

test('reattaching reads the events after the last one shown, keeps each for a reload, and forgets the run at its end', async () => {
  saveFollowedRun(run);
  answer([
    ': keep-alive\n\nid: 3\nevent: text-delta\ndata: {"delta":"ll"}\n\nid: 4\nevent: text-',
    'delta\r\ndata: {"delta":"o"}\r\n\r\n',
    'id: 5\nevent: done\ndata: {"output":"Hello","session_id":"ses_1","status":"completed"}\n\n',
  ]);
  const updates: RunUpdate[] = [];
  const kept: (SavedRun | undefined)[] = [];
  const ended = await reattachRun(
    'key-1',
    run,
    (update) => {
      updates.push(update);
      kept.push(loadFollowedRun());
    },
    new AbortController().signal,
  );
  expect(ended).toBe(true);
  expect(requests.map((r) => [r.url, r.init.headers])).toStrictEqual([
    ['/api/v1/runs/run_1/events?after=2', { 'x-api-key': 'key-1', accept: 'text/event-stream' }],
  ]);
  expect(updates).toStrictEqual([
    { kind: 'text', run: { ...run, last_event_id: 3, text: 'Hell' } },
    { kind: 'text', run: { ...run, last_event_id: 4, text: 'Hello' } },
    {
      kind: 'done',
      run: { ...run, last_event_id: 5, text: 'Hello' },
      result: { output: 'Hello', session_id: 'ses_1', status: 'completed' },
    },
  ]);
  expect(kept).toStrictEqual([{ ...saved, last_event_id: 3 }, { ...saved, last_event_id: 4 }, undefined]);
});

test('storage that cannot be used counts as none, and following goes on without it', async () => {
  const refuse = () => {
    throw new DOMException('denied', 'SecurityError');
  };
  vi.stubGlobal('sessionStorage', { getItem: refuse, setItem: refuse, removeItem: refuse });
  saveFollowedRun(run);
  expect(loadFollowedRun()).toBeUndefined();
  answer(['id: 3\nevent: text-delta\ndata: {"delta":"l"}\n\n']);
  const updates: RunUpdate[] = [];
  expect(await reattachRun('key-1', run, (update) => updates.push(update), new AbortController().signal)).toBe(false);
  expect(updates).toStrictEqual([{ kind: 'text', run: { ...run, last_event_id: 3, text: 'Hel' } }]);
});

test('a stream that breaks off before the end keeps the run for the next read', async () => {
  answer(['id: 3\nevent: text-delta\ndata: {"delta":"l"}\n\n']);
  expect(await reattachRun('key-1', run, () => {}, new AbortController().signal)).toBe(false);
  expect(loadFollowedRun()).toStrictEqual({ ...saved, last_event_id: 3 });
});

test('a run gone from the server is an error with the envelope’s message', async () => {
  answer([], 404);
  await expect(reattachRun('key-1', run, () => {}, new AbortController().signal)).rejects.toMatchObject({
    name: 'ApiError',
    message: 'Run not found',
    status: 404,
  });
});

test('a started run is followed from its run frame; its error event ends it with the message', async () => {
  answer([
    'event: run\ndata: {"run_id":"run_9","session_id":"ses_9","status":"queued"}\n\n',
    'id: 1\nevent: text-delta\ndata: {"delta":"Hi"}\n\n',
    'id: 2\nevent: error\ndata: {"success":false,"error":"The run was cancelled","code":"cancelled","status":409}\n\n',
  ]);
  const updates: RunUpdate[] = [];
  const ended = await startBackgroundRun(
    'key-1',
    'agt_1',
    { input: 'hi', session_id: 'ses_9' },
    (update) => updates.push(update),
    new AbortController().signal,
  );
  expect(ended).toBe(true);
  expect(JSON.parse(requests[0]!.init.body as string)).toStrictEqual({
    input: 'hi',
    session_id: 'ses_9',
    stream: true,
    background: true,
  });
  const followed = { run_id: 'run_9', agent_id: 'agt_1', session_id: 'ses_9', input: 'hi' };
  expect(updates).toStrictEqual([
    { kind: 'text', run: { ...followed, last_event_id: 0, text: '' } },
    { kind: 'text', run: { ...followed, last_event_id: 1, text: 'Hi' } },
    { kind: 'error', run: { ...followed, last_event_id: 2, text: 'Hi' }, message: 'The run was cancelled' },
  ]);
  expect(loadFollowedRun()).toBeUndefined();
});

test('an error frame without an id is a failed reading, not the run’s end: the run is kept to be read again', async () => {
  saveFollowedRun(run);
  answer([
    'id: 3\nevent: text-delta\ndata: {"delta":"l"}\n\n',
    'event: error\ndata: {"success":false,"error":"Storage is unavailable; retry later","code":"storage_unavailable","status":503}\n\n',
    // Nothing after the failed reading counts (a server would have ended the stream there).
    'id: 4\nevent: text-delta\ndata: {"delta":"lo"}\n\n',
  ]);
  const updates: RunUpdate[] = [];
  expect(await reattachRun('key-1', run, (update) => updates.push(update), new AbortController().signal)).toBe(false);
  expect(updates).toStrictEqual([{ kind: 'text', run: { ...run, last_event_id: 3, text: 'Hel' } }]);
  expect(loadFollowedRun()).toStrictEqual({ ...saved, last_event_id: 3 });
});
