#!/usr/bin/env node
// Builds the published packages whose build is missing or older than their sources, and nothing when
// every build is current: what `pnpm start` runs before starting the server, so a start after a
// build takes no build time. A package is stale when any source (not its tests), its package.json,
// its build settings, or the shared ones, is newer than the oldest file of its dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SHARED = ['tsup.base.ts', 'tsconfig.base.json'].map((file) => join(root, file));

/** Every file under `dir`, recursively. */
function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const mtime = (file) => statSync(file).mtimeMs;

function isStale(dir) {
  const built = files(join(dir, 'dist'));
  if (built.length === 0) return true;
  const inputs = [
    ...files(join(dir, 'src')).filter((file) => !/\.test\.[cm]?ts$/.test(file)),
    ...['package.json', 'tsup.config.ts', 'tsconfig.json', 'tsconfig.build.json'].map((file) => join(dir, file)),
    ...SHARED,
  ].filter(existsSync);
  return Math.max(...inputs.map(mtime)) > Math.min(...built.map(mtime));
}

const packages = readdirSync(join(root, 'packages')).filter((name) =>
  existsSync(join(root, 'packages', name, 'package.json')),
);
const stale = packages.filter((name) => isStale(join(root, 'packages', name)));
if (stale.length > 0) {
  process.stdout.write(`building ${stale.map((name) => `packages/${name}`).join(', ')}\n`);
  // Filtered, pnpm still builds in dependency order.
  const filters = stale.flatMap((name) => ['--filter', `./packages/${name}`]);
  const built = spawnSync('pnpm', [...filters, 'run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  process.exit(built.status ?? 1);
}
