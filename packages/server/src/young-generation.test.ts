import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { killAll, startServer } from './test-process.js';
import { cappedCommandLine, capYoungGeneration, SEMI_SPACE_MB, youngGenerationChosen } from './young-generation.js';

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
  test('starts the process again with the cap, in the same environment, without an experimental warning', () => {
    vi.stubEnv('NODE_OPTIONS', '');
    const warned = vi.spyOn(process, 'emitWarning');
    const calls: unknown[][] = [];
    const execve = (...args: unknown[]): never => {
      calls.push(args);
      process.emitWarning('process.execve is an experimental feature', 'ExperimentalWarning');
      throw new Error('stopped here: a real execve does not return');
    };
    vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    capYoungGeneration(execve);
    expect(calls).toStrictEqual([
      [process.execPath, cappedCommandLine(process.execPath, process.execArgv, process.argv), process.env],
    ]);
    expect(warned).not.toHaveBeenCalled();
    // Given back once the call returned.
    process.emitWarning('after', 'TestWarning');
    expect(warned).toHaveBeenCalledTimes(1);
  });

  test('a failed start again is said on stderr, and the server goes on uncapped', () => {
    vi.stubEnv('NODE_OPTIONS', '');
    const stderr = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    capYoungGeneration(() => {
      throw new Error('ENOENT: no such file');
    });
    expect(stderr.mock.calls).toStrictEqual([
      ["agenthost: could not cap V8's young generation (ENOENT: no such file); going on without\n"],
    ]);
  });

  test("leaves the operator's size, and a Node without process.execve, alone", () => {
    const execve = vi.fn<() => never>();
    vi.stubEnv('NODE_OPTIONS', '--max-semi-space-size=32');
    capYoungGeneration(execve);
    vi.stubEnv('NODE_OPTIONS', '');
    capYoungGeneration(null);
    expect(execve).not.toHaveBeenCalled();
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

  test("keeps the operator's size from NODE_OPTIONS", async () => {
    const server = await startServer({ NODE_OPTIONS: '--max-semi-space-size=8' });
    expect(commandLine(server.child.pid!).slice(1)).toStrictEqual([expect.stringMatching(/bin\.js$/), 'serve']);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
