// Test support (not shipped): the built server as a child process, and a JSON client for it.
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `agenthost` command. */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

export interface StartedServer extends ServerProcess {
  url: string;
}

const children: ChildProcess[] = [];

/**
 * A home for a process that names none: never the real one, even for a test that leaves the store
 * at its default by mistake.
 */
export function homeFor(env: Record<string, string>): Record<string, string> {
  return env.AGENTHOST_HOME !== undefined || env.HOME !== undefined
    ? {}
    : { AGENTHOST_HOME: join(tmpdir(), `agenthost-test-home-${process.pid}`) };
}

/** Kills every process started through this module (for afterEach). */
export function killAll(): void {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Spawns `agenthost serve` with only the given environment (plus PATH, PORT=0, a memory store and a temporary home unless set). */
export function runServer(env: Record<string, string>, args: string[] = [], cwd?: string): ServerProcess {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    ...(cwd && { cwd }),
    env: { PATH: process.env.PATH ?? '', PORT: '0', AGENTHOST_STORE: 'memory', ...homeFor(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Spawns the server and resolves with its URL once it prints that it is listening. */
export async function startServer(env: Record<string, string>, cwd?: string): Promise<StartedServer> {
  const r = runServer(env, [], cwd);
  // Generous: a loaded 2-core machine can take a while to start a process that opens a store.
  const deadline = Date.now() + 60_000;
  while (!/listening on (\S+)/.test(r.stdout())) {
    if (r.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`server did not start: ${r.stdout()} ${r.stderr()}`);
    await new Promise((res) => setTimeout(res, 20));
  }
  return { ...r, url: /listening on (\S+)/.exec(r.stdout())![1]! };
}

export interface ApiResult {
  status: number;
  body: { success: boolean; data?: any; error?: string; status: number };
}

/** One JSON request to the API. */
export async function api(url: string, key: string, method: string, path: string, body?: unknown): Promise<ApiResult> {
  const res = await fetch(url + path, {
    method,
    headers: { 'x-api-key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as ApiResult['body'] };
}
