import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { claimStore } from './store-claim.js';

const dir = await mkdtemp(join(tmpdir(), 'agenthost-claim-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

test('a file is claimed once: a second claim in the same process is refused until the first is released', async () => {
  const file = join(dir, 'one', 'agenthost.sqlite');
  const release = await claimStore(`sqlite://${file}`);
  expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${process.pid}\n`);
  await expect(claimStore(`sqlite://${file}`)).rejects.toThrow(
    `another agenthost server (process ${process.pid}) is serving ${file}: one server per SQLite file`,
  );
  await release();
  expect(existsSync(`${file}.pid`)).toBe(false);
  await (await claimStore(`sqlite://${file}`))();
});

test('a claim held by a process that has ended is taken over; one held by a running process is not', async () => {
  const file = join(dir, 'stale.sqlite');
  const ended = spawnSync(process.execPath, ['-e', '']).pid;
  writeFileSync(`${file}.pid`, `${ended}\n`);
  const release = await claimStore(`sqlite://${file}`);
  expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${process.pid}\n`);
  await release();

  writeFileSync(`${file}.pid`, `${process.ppid}\n`);
  await expect(claimStore(`sqlite://${file}`)).rejects.toThrow(`(process ${process.ppid}) is serving ${file}`);
});

test('other stores need no claim', async () => {
  await (await claimStore('memory'))();
  await (await claimStore('redis://127.0.0.1:6379'))();
});
