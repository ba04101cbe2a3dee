import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { BIN, homeFor, killAll, startServer } from './test-process.js';
import {
  CAPPED_MARK,
  cappedCommandLine,
  capYoungGeneration,
  type ProcessFacts,
  reasonNotToRestart,
  SEMI_SPACE_MB,
  youngGenerationChosen,
} from './young-generation.js';

type Execve = (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;

afterEach(() => {
  killAll();
  vi.restoreAllMocks();
});

describe('youngGenerationChosen', () => {
  test.each([
    [['--max-semi-space-size=8'], undefined],
    [['--max_semi_space_size=8'], undefined],
    [['--max-semi-space-size', '8'], undefined],
    [['--cpu-prof'], '--max-semi-space-size=64'],
    [[], '--enable-source-maps --max_semi_space_size 32'],
    [[], '"--max-semi-space-size=8" --enable-source-maps'],
  ])('an operator choice: flags %j, NODE_OPTIONS %j', (execArgv, nodeOptions) => {
    expect(youngGenerationChosen(execArgv, nodeOptions)).toBe(true);
  });

  test.each([
    [[], undefined],
    [['--max-old-space-size=512', '--cpu-prof'], '--max-old-space-size=512'],
    [['--no-max-semi-space-sizes'], '--max-semi-space-size-x=1'],
  ])('no choice: flags %j, NODE_OPTIONS %j', (execArgv, nodeOptions) => {
    expect(youngGenerationChosen(execArgv, nodeOptions)).toBe(false);
  });
});

test("the capped command line keeps Node's flags, then the cap, the script and its arguments", () => {
  expect(
    cappedCommandLine('/bin/node', ['--cpu-prof', '--cpu-prof-dir', '/p'], ['/bin/node', '/a/bin.js', 'serve', '-x']),
  ).toStrictEqual([
    '/bin/node',
    '--cpu-prof',
    '--cpu-prof-dir',
    '/p',
    `--max-semi-space-size=${SEMI_SPACE_MB}`,
    '/a/bin.js',
    'serve',
    '-x',
  ]);
});

describe('capYoungGeneration', () => {
  /** A process that may start again: Linux, no size chosen, no parent on IPC, no debugger. */
  const facts = (over: Partial<ProcessFacts> = {}): ProcessFacts => ({
    platform: 'linux',
    execPath: process.execPath,
    execArgv: ['--enable-source-maps'],
    argv: [process.execPath, '/app/bin.js', 'serve'],
    env: { PATH: '/bin', NODE_OPTIONS: '--max-old-space-size=512' },
    ...over,
  });
  const never = () => vi.fn<Execve>();

  test('starts the process again with the cap and a mark, in the same environment, without a warning', () => {
    const warned = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const calls: unknown[][] = [];
    const execve = (...args: unknown[]): never => {
      calls.push(args);
      process.emitWarning('process.execve is an experimental feature', 'ExperimentalWarning');
      throw new Error('stopped here: a real execve does not return');
    };
    vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    capYoungGeneration(execve, facts());
    expect(calls).toStrictEqual([
      [
        process.execPath,
        [process.execPath, '--enable-source-maps', `--max-semi-space-size=${SEMI_SPACE_MB}`, '/app/bin.js', 'serve'],
        { PATH: '/bin', NODE_OPTIONS: '--max-old-space-size=512', [CAPPED_MARK]: '1' },
      ],
    ]);
    expect(warned).not.toHaveBeenCalled();
    // Given back once the call returned.
    process.emitWarning('after', 'TestWarning');
    expect(warned).toHaveBeenCalledTimes(1);
  });

  test('a start again that throws is said on stderr, and the server goes on uncapped', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    capYoungGeneration(() => {
      throw new Error('EACCES: permission denied');
    }, facts());
    expect(stderr.mock.calls).toStrictEqual([
      ["agenthost: could not cap V8's young generation (EACCES: permission denied); going on without\n"],
    ]);
  });

  test('the process started again takes the mark out of its environment and does not start again', () => {
    const execve = never();
    const started = facts({ execArgv: [], env: { PATH: '/bin', [CAPPED_MARK]: '1' } });
    capYoungGeneration(execve, started);
    expect(execve).not.toHaveBeenCalled();
    expect(started.env).toStrictEqual({ PATH: '/bin' });
  });

  test.each<[string, Partial<ProcessFacts>]>([
    ['the operator chose a size', { env: { NODE_OPTIONS: '--max-semi-space-size=32' } }],
    ['no execve on this platform', { platform: 'win32' }],
    ['a parent talks to it over IPC', { send: () => true }],
    ['a debugger', { execArgv: ['--inspect-brk=0'] }],
    ['a debugger', { env: { NODE_OPTIONS: '--inspect' } }],
    ['a debugger', { execArgv: ['--inspect_wait'] }],
    ['a debugger', { env: { NODE_OPTIONS: '--debug-port=9230' } }],
    ['its executable cannot be run', { execPath: '/nonexistent/node' }],
  ])('leaves the process as it is when %s, and says nothing', (reason, over) => {
    const stderr = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    const execve = never();
    expect(reasonNotToRestart(facts(over))).toBe(reason);
    capYoungGeneration(execve, facts(over));
    expect(execve).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });

  test('a Node without process.execve leaves the process as it is', () => {
    const real = vi.spyOn(process, 'execve').mockImplementation((() => {
      throw new Error('must not be called');
    }) as never);
    capYoungGeneration(null, facts());
    expect(real).not.toHaveBeenCalled();
  });
});

// The built command, as operators start it; `/proc/<pid>/cmdline` shows what the process now runs.
describe.skipIf(process.platform !== 'linux')('agenthost serve', () => {
  const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

  test('runs in the process it was started as, with the cap, and says nothing of it on stderr', async () => {
    const server = await startServer({});
    expect(commandLine(server.child.pid!).slice(1)).toStrictEqual([
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
      expect.stringMatching(/bin\.js$/),
      'serve',
    ]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.stderr()).toBe('');
  }, 60_000);

  test('a server forked by a parent keeps its IPC channel: it is not started again', async () => {
    const child = fork(BIN, ['serve'], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', AGENTHOST_STORE: 'memory', ...homeFor({}) },
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    try {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d));
      await vi.waitFor(() => expect(out).toMatch(/listening on/), { timeout: 30_000, interval: 50 });
      expect(commandLine(child.pid!).slice(1)).toStrictEqual([expect.stringMatching(/bin\.js$/), 'serve']);
      expect(child.connected).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  test("keeps the operator's size from NODE_OPTIONS", async () => {
    const server = await startServer({ NODE_OPTIONS: '--max-semi-space-size=8' });
    expect(commandLine(server.child.pid!).slice(1)).toStrictEqual([expect.stringMatching(/bin\.js$/), 'serve']);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
