import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

test('the example starts a server that answers, and stops on SIGTERM', async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "pnpm build" first (pnpm test does)`);
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', AGENTHOST_STORE: 'memory', AGENTHOST_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  while (!/listening on (\S+)\n.*: (ah_dev_\S+)\n/.test(out)) await new Promise((r) => setTimeout(r, 20));
  const [, url, key] = /listening on (\S+)\n.*: (ah_dev_\S+)\n/.exec(out)!;
  const res = await fetch(`${url}/agents`, { headers: { 'x-api-key': key! } });
  expect([res.status, await res.json()]).toStrictEqual([200, { success: true, data: [], status: 200 }]);
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(out.endsWith('stopped (0 request(s) cut off)\n')).toBe(true);
}, 60_000);
