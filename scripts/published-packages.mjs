// The workspace's published packages: each packages/<dir> whose package.json is not private. The
// architecture check and the pack-and-install step both take their list from here, so a new
// package is covered the day it is added.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The published packages under `root` (the repository by default), in directory order.
 * @returns {{ dir: string, name: string, manifest: Record<string, any> }[]}
 */
export function publishedPackages(root = join(import.meta.dirname, '..')) {
  const parent = join(root, 'packages');
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(parent, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(parent, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      return { dir, name: manifest.name, manifest };
    })
    .filter(({ manifest }) => manifest.private !== true)
    .sort((a, b) => a.dir.localeCompare(b.dir));
}
