import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { api, BIN, homeFor, killAll, runServer, startServer } from './test-process.js';

// The built `agenthost` command, run as users run it. Every test has its own home: never the real one.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const scratch = await mkdtemp(join(tmpdir(), 'agenthost-cli-'));
let count = 0;
const fresh = async () => mkdtemp(join(scratch, `${++count}-`));

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "pnpm build" first (pnpm test does)`);
});
afterEach(killAll);
afterAll(() => rm(scratch, { recursive: true, force: true }));

function agenthost(env: Record<string, string>, cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...homeFor(env), ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('agenthost keys create, then agenthost serve: one store, wherever they are run', () => {
  test.each([
    ['AGENTHOST_HOME, both from the repository root', 'home', 'root', 'root'],
    ['AGENTHOST_HOME, both from another folder', 'home', 'other', 'other'],
    ['HOME only, the key made at the root, the server started elsewhere', 'HOME', 'root', 'other'],
  ])(
    '%s',
    async (_name, setting, createIn, serveIn) => {
      const home = await fresh();
      const other = await fresh();
      const env: Record<string, string> = setting === 'home' ? { AGENTHOST_HOME: home } : { HOME: home };
      const cwd = (where: string) => (where === 'root' ? ROOT : other);
      const created = agenthost(env, cwd(createIn), 'keys', 'create', '--account', 'acme', '--json');
      expect([created.status, created.stderr]).toStrictEqual([0, '']);
      const { key } = JSON.parse(created.stdout) as { key: string };
      const file = setting === 'home' ? join(home, 'agenthost.sqlite') : join(home, '.agenthost', 'agenthost.sqlite');
      expect(existsSync(file)).toBe(true);

      const server = await startServer({ ...env, AGENTHOST_STORE: '' }, cwd(serveIn));
      expect(server.stdout()).toContain(
        `  store: sqlite://${file} (one server per file)\n  keys: 0 configured, 1 issued`,
      );
      expect(await api(server.url, key, 'GET', '/agents')).toStrictEqual({
        status: 200,
        body: { success: true, data: [], status: 200 },
      });
    },
    60_000,
  );
});

describe('one server per SQLite file', () => {
  test('a second server on the file refuses to start, naming the first; a claim left by a killed server is taken over', async () => {
    const home = await fresh();
    const env = { AGENTHOST_HOME: home, AGENTHOST_STORE: '', AGENTHOST_API_KEYS: 'acme:key-acme-0123456789abcdef' };
    const file = join(home, 'agenthost.sqlite');
    const first = await startServer(env);
    expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${first.child.pid}\n`);

    const second = runServer(env);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toBe(
      `agenthost: cannot start: another agenthost server (process ${first.child.pid}) is serving ${file}: one server per SQLite file. Stop it, or give this server another AGENTHOST_HOME or AGENTHOST_STORE (servers can share a Redis or PostgreSQL store)\n`,
    );
    expect(second.stdout()).toBe('');

    first.child.kill('SIGKILL');
    await first.exited;
    expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${first.child.pid}\n`);
    const third = await startServer(env);
    expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${third.child.pid}\n`);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    expect(existsSync(`${file}.pid`)).toBe(false);
  }, 60_000);
});

describe('settings that are likely mistakes', () => {
  test('an unknown AGENTHOST_ variable is reported with the nearest known name, and the server starts', async () => {
    const server = await startServer({ AGENTHOST_STROE: 'redis://127.0.0.1:6379', AGENTHOST_API_KEY: 'x' });
    expect(server.stderr()).toBe(
      'agenthost: warning: AGENTHOST_API_KEY is not an agenthost setting and is ignored (did you mean AGENTHOST_API_KEYS?)\n' +
        'agenthost: warning: AGENTHOST_STROE is not an agenthost setting and is ignored (did you mean AGENTHOST_STORE?)\n',
    );
    expect(server.stdout()).toContain('  store: memory');
  }, 60_000);

  test('a bad HOST stops the server with status 2, naming the variable', async () => {
    const r = runServer({ HOST: 'not a host!' });
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toBe(
      'agenthost: invalid configuration:\n  - HOST: must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or a host name\nRun with --help for the list of settings.\n',
    );
  }, 60_000);

  test('a HOST that is no address of this machine stops the server with status 1, naming the variable', async () => {
    const r = runServer({ HOST: '192.0.2.1' });
    expect(await r.exited).toBe(1);
    expect(r.stderr()).toBe(
      'agenthost: cannot start: HOST=192.0.2.1 is not an address of this machine (EADDRNOTAVAIL); set HOST, e.g. 127.0.0.1 or 0.0.0.0\n',
    );
  }, 60_000);
});

/** The files `file` loads before running (static imports), followed through the relative ones. */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
  const text = readFileSync(file, 'utf8');
  for (const [, specifier] of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm)) {
    if (!specifier || seen.has(specifier)) continue;
    seen.add(specifier);
    if (specifier.startsWith('.')) staticImports(resolve(dirname(file), specifier), seen);
  }
  return seen;
}

describe('agenthost --help', () => {
  test('prints the commands and every setting at once, loading nothing but its own help', () => {
    const started = Date.now();
    const r = agenthost({}, ROOT, '--help');
    const elapsed = Date.now() - started;
    expect([r.status, r.stderr]).toStrictEqual([0, '']);
    expect(r.stdout.startsWith('agenthost: the agenthost server and its API keys\n\nUsage:\n  agenthost serve')).toBe(
      true,
    );
    for (const line of ['  agenthost keys create --account <account>', '  AGENTHOST_HOME ', '  AGENTHOST_STORE '])
      expect(r.stdout).toContain(line);
    // Generous for a loaded machine; a start that loads the server takes seconds.
    expect(elapsed).toBeLessThan(1_500);
    expect([...staticImports(BIN)].filter((specifier) => !specifier.startsWith('./'))).toStrictEqual([]);
  });

  test('no command prints the same help and exits 2; an unknown command is named', () => {
    const none = agenthost({}, ROOT);
    expect([none.status, none.stdout]).toStrictEqual([2, agenthost({}, ROOT, '-h').stdout]);
    const unknown = agenthost({}, ROOT, 'start');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.startsWith('agenthost: unknown command "start"\n\nagenthost: the agenthost server')).toBe(
      true,
    );
  });
});
