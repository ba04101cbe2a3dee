import {
  AgentService,
  type AgentServiceOptions,
  InProcessRunStore,
  inProcessLocks,
  openAIModels,
} from '@agenthost/core';
import { type FakeOpenAIReply, type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { expect } from 'vitest';
import { staticKeys } from './auth.js';
import { type ServedRouter, serveRouter } from './test-served-router.js';

// Test support of the background-run HTTP tests (not exported): two servers (two services, two
// routers) that share one store, one lock provider and one in-process run store, as servers on one
// Redis or PostgreSQL would; the real OpenAI provider against a loopback fake that answers slowly
// (`slow`), hangs (`hang`), or answers at once; and readers of their answers and event streams.
export const KEY = 'key-background-0123456789abcdef';
export const OTHER = 'key-background-other-012345678';
export const SLOW_TEXT = ['one ', 'two ', 'three ', 'four ', 'five ', 'six'];
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let fake: FakeOpenAIServer;
let services: AgentService[] = [];
let servers: ServedRouter[] = [];
let runStore: InProcessRunStore;
export let logged: { message: string; fields: Record<string, unknown> }[];
/** The base URLs of server A and server B. */
export let A: string;
export let B: string;

function behaviour(input: string): FakeOpenAIReply {
  if (input === 'slow') return { text: SLOW_TEXT.join(''), chunks: SLOW_TEXT, chunkDelayMs: 120, usage: usage() };
  if (input === 'hang') return { hang: true };
  return { text: `Reply to: ${input}`, usage: usage() };
}
const usage = () => ({ input: 10, output: 4 });

/** Two servers sharing a store, locks and a run store; `limits` for both services. */
export async function serveTwo(limits: AgentServiceOptions['backgroundRuns'] = {}) {
  fake = await startFakeOpenAIServer({
    reply: (request) => behaviour(request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? ''),
  });
  const store = new MemoryStore();
  const locks = inProcessLocks();
  runStore = new InProcessRunStore();
  logged = [];
  services = [0, 1].map(
    () =>
      new AgentService({
        store,
        locks,
        runs: runStore,
        models: openAIModels({ apiKey: 'provider-key', baseURL: fake.baseURL, models: ['gpt-4o-mini'] }),
        maxRetries: 0,
        backgroundRuns: { maxInFlight: 4, ...limits },
      }),
  );
  servers = await Promise.all(
    services.map((service) =>
      serveRouter(service, {
        resolveKey: staticKeys([
          { account: 'acme', key: KEY },
          { account: 'other', key: OTHER },
        ]),
        logger: { error: (fields, message) => logged.push({ fields, message }) },
      }),
    ),
  );
  [A, B] = servers.map((served) => served.base) as [string, string];
}

/** Stops both servers, their services, the run store and the fake provider. */
export async function stopServers(): Promise<void> {
  await Promise.all(servers.map((served) => served.close()));
  await Promise.all(services.map((service) => service.close()));
  await runStore?.close?.();
  await fake?.close();
  servers = [];
  services = [];
}

/** Sends a JSON request with the account's key (or the headers' own) and reads its JSON answer. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, any> }> {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** Creates an agent on server A and answers its id. */
export const agent = async () =>
  (await call(A, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'gpt-4o-mini' })).body.data
    .agent_id as string;

/** Starts a background run on server A and answers its run object. */
export async function start(agentId: string, body: Record<string, unknown>) {
  const res = await call(A, 'POST', `/agents/${agentId}/run`, { ...body, background: true });
  expect(res.status).toBe(202);
  return res.body.data as Record<string, any>;
}

/** Reads the run from `base` until `done` says it is (within 10 s). */
export async function readUntil(base: string, runId: string, done: (run: Record<string, any>) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = (await call(base, 'GET', `/runs/${runId}`)).body.data as Record<string, any>;
    if (done(run) || Date.now() > deadline) return run;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
/** Reads the run from `base` until it has finished. */
export const finished = (base: string, runId: string) =>
  readUntil(base, runId, (run) => !['queued', 'running'].includes(run.status));

/** One server-sent event: its id (when it has one), name and data. */
export interface Frame {
  id?: number;
  event: string;
  data: any;
}

function frameOf(block: string): Frame | undefined {
  const lines = block.split('\n').filter((line) => !line.startsWith(':'));
  if (lines.length === 0) return undefined;
  const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
  const id = field('id');
  return { ...(id !== undefined && { id: Number(id) }), event: field('event')!, data: JSON.parse(field('data')!) };
}

/**
 * Reads the frames of a server-sent event answer as they come; with `stopAfter`, goes away (aborts
 * the request) once that many frames arrived.
 */
export async function readFrames(res: Response, options: { stopAfter?: number; abort?: AbortController } = {}) {
  const frames: Frame[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    text += value;
    const blocks = text.split('\n\n');
    text = blocks.pop()!;
    for (const block of blocks) {
      const frame = frameOf(block);
      if (frame) frames.push(frame);
      if (frames.length === options.stopAfter) {
        options.abort?.abort();
        await reader.cancel().catch(() => {});
        return frames;
      }
    }
  }
}

/** Opens `GET /runs/{runId}/events` on `base`. */
export function events(
  base: string,
  runId: string,
  query = '',
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  return fetch(`${base}/runs/${runId}/events${query}`, {
    headers: { 'x-api-key': KEY, ...headers },
    ...(signal && { signal }),
  });
}

/** Every event of the run, read from `base` to the end. */
export const allEvents = async (base: string, runId: string) => readFrames(await events(base, runId));
