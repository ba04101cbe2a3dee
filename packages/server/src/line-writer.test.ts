import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const numbered = (count: number) => Array.from({ length: count }, (_, i) => `{"i":${i}}\n`);
/** A descriptor no process can have open (descriptors are below 2^31): every write fails with EBADF. */
const BAD_FD = 2 ** 31 - 1;

/** The warning line a writer puts before the next lines once it dropped some. */
const warningOf = (count: number) => ({
  level: 40,
  time: expect.any(Number),
  pid: process.pid,
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

test('a batch holds at most maxBatch characters, or one line; the order is kept across batches', async () => {
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
  const lines = new LineWriter(BAD_FD);
  lines.write('a\n');
  lines.write('b\n');
  await lines.drain(5000);
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
  const [warning, ...rest] = written().trim().split('\n');
  expect(JSON.parse(warning!)).toStrictEqual(warningOf(1));
  expect(rest).toStrictEqual(['0123456789', 'abcdef', 'mnopqr']);
});

test('drain resolves at once when nothing waits', async () => {
  await expect(new LineWriter(BAD_FD).drain(60_000)).resolves.toBeUndefined();
});
