#!/usr/bin/env node
// Checks "who may import whom" (docs/architecture.md, as rules in .dependency-cruiser.cjs) on the
// files each published package ships: dependency-cruiser starts at the sources of its entry points
// (package.json `exports` and `bin`) and follows every import from there, across packages too.
// Files that only tests reach are never visited, so tests may cross packages.
//
//   node scripts/check-architecture.mjs [root]     (root: the repository by default)
//
// Exits non-zero on any violation, or when an entry point has no source to start from.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { publishedPackages } from './published-packages.mjs';

const repository = join(import.meta.dirname, '..');
const root = process.argv[2] ?? repository;

/**
 * Every built JavaScript file a manifest's `exports` and `bin` point at (`./dist/x.js`); a committed
 * launcher outside dist/ (`./bin/x.js`) stands for the built files it imports.
 */
function builtEntries(manifest, dir) {
  const found = new Set();
  const walk = (value) => {
    if (typeof value === 'string') {
      if (/^\.\/dist\/.+\.(js|cjs|mjs)$/.test(value)) found.add(value.replace(/\.(cjs|mjs)$/, '.js'));
      else if (/^\.\/bin\/.+\.(js|cjs|mjs)$/.test(value) && existsSync(join(dir, value)))
        for (const [, built] of readFileSync(join(dir, value), 'utf8').matchAll(/['"]\.\.\/(dist\/[^'"]+\.js)['"]/g))
          found.add(`./${built}`);
    } else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest.exports ?? manifest.main ?? './dist/index.js');
  walk(manifest.bin);
  return [...found];
}

/** The source file tsup builds `./dist/<name>.js` from. */
function sourceOf(dir, built) {
  const stem = built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '');
  const source = ['.ts', '.mts', '.js', '.mjs'].map((ext) => join(dir, stem + ext)).find(existsSync);
  if (!source) throw new Error(`${relative(root, dir)}: no source for ${built} (looked for ${stem}.ts)`);
  return relative(root, source);
}

/** The sources to start from; exits with a message when a package's entry point has none. */
function entryPoints() {
  try {
    const entries = publishedPackages(root).flatMap(({ dir, manifest }) =>
      builtEntries(manifest, dir).map((built) => sourceOf(dir, built)),
    );
    if (entries.length === 0) throw new Error(`no published package under ${root}/packages`);
    return entries;
  } catch (error) {
    console.error(`architecture: ${error.message}`);
    process.exit(1);
  }
}

const entries = entryPoints();
console.log(`architecture: ${entries.length} entry points: ${entries.join(' ')}`);

const cruiser = join(repository, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const config = join(repository, '.dependency-cruiser.cjs');
const result = spawnSync(process.execPath, [cruiser, '--config', config, '--output-type', 'err', ...entries], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
