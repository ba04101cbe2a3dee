import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LineWriter } from './line-writer.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agenthost-lines-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `{"i":${i}}\n`);

/** A descriptor no process can have open (fds are below 2^31), so a write to it fails with EBADF. */
const BAD_FD = 2 ** 31 - 1;

test('lines are written off the main thread, every one of them, in order', async () => {
  const fd = openSync(join(dir, 'log'), 'w');
  const lines = new LineWriter(fd);
  for (const line of numbered(2000)) expect(lines.write(line)).toBe(true);
  // Logging did not wait for the file: at most the first write (of the first line) can have landed.
  expect(['', numbered(1)[0]]).toContain(readFileSync(join(dir, 'log'), 'utf8'));
  await lines.drain(5000);
  closeSync(fd);
  expect(readFileSync(join(dir, 'log'), 'utf8')).toBe(numbered(2000).join(''));
  expect(lines.dropped).toBe(0);
});

test('flushSync writes what is queued before it returns', async () => {
  const fd = openSync(join(dir, 'log'), 'w');
  const lines = new LineWriter(fd);
  lines.write('first\n');
  lines.write('second\n');
  await lines.drain(5000);
  lines.write('under way\n');
  lines.write('queued\n');
  lines.flushSync(1000);
  expect(readFileSync(join(dir, 'log'), 'utf8')).toMatch(/^first\nsecond\n(under way\n)?queued\n/);
  await lines.drain(5000);
  closeSync(fd);
  const written = readFileSync(join(dir, 'log'), 'utf8');
  expect(written.split('\n').filter(Boolean).sort()).toStrictEqual(['first', 'queued', 'second', 'under way']);
});

test('a descriptor that fails ends the writing: no throw, no wait, later lines dropped and counted', async () => {
  const lines = new LineWriter(BAD_FD);
  lines.write('a\n');
  lines.write('b\n');
  await lines.drain(5000);
  expect(lines.dropped).toBe(2);
  lines.write('c\n');
  await lines.drain(5000);
  lines.flushSync(10_000);
  expect(lines.dropped).toBe(3);
});

test('flushSync gives up at once on an error other than a full pipe, instead of trying again', async () => {
  const lines = new LineWriter(BAD_FD);
  lines.write('under way\n');
  lines.write('queued\n');
  const started = Date.now();
  lines.flushSync(10_000);
  expect(Date.now() - started).toBeLessThan(1000);
  expect(lines.dropped).toBe(1);
  await lines.drain(5000);
  expect(lines.dropped).toBe(2);
});

test('past maxQueued characters, lines are dropped, counted, and reported by a line once the queue drains', async () => {
  const fd = openSync(join(dir, 'log'), 'w');
  const lines = new LineWriter(fd, { maxQueued: 12 });
  lines.write('0123456789\n'); // taken by the first write at once
  lines.write('abcdef\n');
  lines.write('ghijkl\n'); // 14 characters queued: dropped
  expect(lines.dropped).toBe(1);
  await lines.drain(5000);
  lines.write('mnopqr\n');
  await lines.drain(5000);
  closeSync(fd);
  const [first, second, warning, last] = readFileSync(join(dir, 'log'), 'utf8').split('\n');
  expect([first, second, last]).toStrictEqual(['0123456789', 'abcdef', 'mnopqr']);
  expect(JSON.parse(warning!)).toStrictEqual({
    level: 40,
    time: expect.any(Number),
    pid: process.pid,
    msg: '1 log line(s) dropped: more than 12 characters waited to be written',
  });
});

test('drain resolves at once when nothing is under way', async () => {
  const lines = new LineWriter(BAD_FD);
  await expect(lines.drain(60_000)).resolves.toBeUndefined();
});
