import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
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

test("the claim is the operating system's lock: held by a running process it refuses, and it ends with that process, however it ends", async () => {
  const file = join(dir, 'other.sqlite');
  // Another process takes the claim, says so, and waits to be killed.
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const { DatabaseSync } = require('node:sqlite');
       const db = new DatabaseSync(${JSON.stringify(`${file}.lock`)});
       db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;');
       require('node:fs').writeFileSync(${JSON.stringify(`${file}.pid`)}, process.pid + '\\n');
       console.log('held'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve) => holder.stdout.once('data', resolve));
  await expect(claimStore(`sqlite://${file}`)).rejects.toThrow(
    `another agenthost server (process ${holder.pid}) is serving ${file}: one server per SQLite file`,
  );
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${holder.pid}\n`); // what a killed server leaves
  const release = await claimStore(`sqlite://${file}`);
  expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${process.pid}\n`);
  await release();
});

test('a new store is private to its user: the folder 0700, the database 0600', async () => {
  const file = join(dir, 'private', 'home', 'agenthost.sqlite');
  const release = await claimStore(`sqlite://${file}`);
  expect(statSync(join(dir, 'private', 'home')).mode & 0o777).toBe(0o700);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(`${file}.pid`).mode & 0o777).toBe(0o600);
  await release();
});

test('other stores need no claim', async () => {
  await (await claimStore('memory'))();
  await (await claimStore('redis://127.0.0.1:6379'))();
});
