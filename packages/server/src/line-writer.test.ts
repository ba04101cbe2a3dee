import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LineWriter } from './line-writer.js';

let dir: string;
let fd: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agenthost-lines-'));
  fd = openSync(join(dir, 'log'), 'w');
});
afterEach(() => {
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

const written = () => readFileSync(join(dir, 'log'), 'utf8');

/** A writer on `fd` given lines "a" and "b", once they were tried. */
async function afterTwoLines(to: number): Promise<LineWriter> {
  const lines = new LineWriter(to);
  lines.write('a\n');
  lines.write('b\n');
  await lines.drain(5000);
  return lines;
}
const numbered = (count: number) => Array.from({ length: count }, (_, i) => `{"i":${i}}\n`);
/** A descriptor no process can have open (descriptors are below 2^31): every write fails with EBADF. */
const BAD_FD = 2 ** 31 - 1;

/** The warning line a writer puts before the next lines once it dropped some. */
const warningOf = (count: number) => ({
  level: 40,
  time: expect.any(Number),
  pid: process.pid,
  hostname: hostname(),
  msg: `${count} log line(s) dropped: the log could not be written as fast as lines came`,
});

test('the lines of one turn of the event loop are written together at its end, every one, in order', async () => {
  const lines = new LineWriter(fd);
  for (const line of numbered(2000)) expect(lines.write(line)).toBe(true);
  expect(written()).toBe('');
  await lines.drain(5000);
  expect(written()).toBe(numbered(2000).join(''));
  expect(lines.dropped).toBe(0);
});

test('with a small maxBatch, a line longer than it and lines across batches still go out whole and in order', async () => {
  const lines = new LineWriter(fd, { maxBatch: 10 });
  for (const line of ['aaaa\n', 'bbbb\n', 'cccccccccccc\n', 'dd\n']) lines.write(line);
  await lines.drain(5000);
  expect(written()).toBe('aaaa\nbbbb\ncccccccccccc\ndd\n');
});

test('flushSync writes everything left before it returns', async () => {
  const lines = new LineWriter(fd);
  lines.write('first\n');
  await lines.drain(5000);
  lines.write('second\n');
  lines.write('third\n');
  lines.flushSync(1000);
  expect(written()).toBe('first\nsecond\nthird\n');
  await expect(lines.drain(60_000)).resolves.toBeUndefined();
});

test('a descriptor that is gone ends the writing: no throw, no wait, every line from then on dropped and counted', async () => {
  const lines = await afterTwoLines(BAD_FD);
  expect(lines.dropped).toBe(2);
  lines.write('c\n');
  const started = Date.now();
  lines.flushSync(10_000);
  expect(Date.now() - started).toBeLessThan(1000);
  expect(lines.dropped).toBe(3);
});

test('flushSync on a descriptor that is gone returns at once instead of trying again', () => {
  const lines = new LineWriter(BAD_FD);
  lines.write('a\n');
  lines.write('b\n');
  const started = Date.now();
  lines.flushSync(10_000);
  expect(Date.now() - started).toBeLessThan(1000);
  expect(lines.dropped).toBe(2);
});

test('past maxQueued characters waiting, lines are dropped, counted, and told of by a warning line', async () => {
  const lines = new LineWriter(fd, { maxQueued: 20 });
  lines.write('0123456789\n');
  lines.write('abcdef\n');
  lines.write('ghijkl\n'); // 25 characters would wait: dropped
  expect(lines.dropped).toBe(1);
  await lines.drain(5000);
  lines.write('mnopqr\n');
  await lines.drain(5000);
  // The warning stands where the dropped line would have been.
  const [first, second, warning, last] = written().trim().split('\n');
  expect([first, second, last]).toStrictEqual(['0123456789', 'abcdef', 'mnopqr']);
  expect(JSON.parse(warning!)).toStrictEqual(warningOf(1));
});

test('drain resolves at once when nothing waits', async () => {
  await expect(new LineWriter(BAD_FD).drain(60_000)).resolves.toBeUndefined();
});

test('a line dropped while no write is under way is still told of, without waiting for the next line', async () => {
  const lines = new LineWriter(fd, { maxQueued: 10 });
  lines.write('a line longer than the bound\n');
  await lines.drain(5000);
  expect(JSON.parse(written())).toStrictEqual(warningOf(1));
  expect(lines.dropped).toBe(1);
});

test.skipIf(process.platform !== 'linux')(
  'a write that fails for want of room drops that batch, tells of it, and the next lines are tried',
  async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const lines = await afterTwoLines(full);
      expect(lines.dropped).toBe(2);
      lines.write('c\n');
      await lines.drain(5000);
      // The warning and "c" were tried (and failed too): the writer did not give up on the descriptor.
      expect(lines.dropped).toBe(3);
    } finally {
      closeSync(full);
    }
  },
);

test('a line logged after the exit flush is written at once', () => {
  const lines = new LineWriter(fd);
  lines.write('before\n');
  lines.flushSync(1000);
  lines.write('after\n');
  expect(written()).toBe('before\nafter\n');
});

test.skipIf(process.platform !== 'linux')(
  'nonBlockingLines puts a piped standard error in non-blocking mode, so a reader that stops cannot stop the process',
  () => {
    // A process of its own that loads nothing but the writer; O_NONBLOCK (04000) among the flags Linux
    // reports for its descriptor 2, before and after. Node runs the TypeScript source as it is.
    const source = fileURLToPath(new URL('./line-writer.ts', import.meta.url));
    const script = `
      const { readFileSync } = await import('node:fs');
      const nonBlocking = () => (Number.parseInt(/^flags:\\s+([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/2', 'utf8'))[1], 8) & 0o4000) !== 0;
      const before = nonBlocking();
      const { nonBlockingLines } = await import(${JSON.stringify(source)});
      nonBlockingLines();
      console.log(JSON.stringify([before, nonBlocking()]));`;
    const child = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toStrictEqual([false, true]);
  },
);
