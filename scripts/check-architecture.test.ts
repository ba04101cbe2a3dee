// The architecture check on a workspace of its own in a temporary folder: packages wired as the
// repository wires them (`@agenthost/*` through the path map of tsconfig.json), npm packages as stubs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

const SCRIPT = join(import.meta.dirname, 'check-architecture.mjs');
const NPM = ['ai', 'zod', 'express', 'keyv', 'mathjs', 'prom-client'];

let root: string;

function write(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A published workspace package built from `src/index.ts`. */
function workspacePackage(name: string, source: string) {
  const manifest = { name: `@agenthost/${name}`, exports: { '.': { import: './dist/index.js' } } };
  write(`packages/${name}/package.json`, JSON.stringify(manifest));
  write(`packages/${name}/src/index.ts`, source);
}

/** The whole workspace as the table allows it; `changes` replaces some packages' entry sources. */
function workspace(changes: Record<string, string> = {}) {
  for (const name of NPM) {
    write(`node_modules/${name}/package.json`, JSON.stringify({ name, main: 'index.js' }));
    write(`node_modules/${name}/index.js`, 'export {};\n');
  }
  const sources: Record<string, string> = {
    core: "import 'ai';\nimport 'zod';\nexport const core = 1;\n",
    storage: "import '@agenthost/core';\nimport 'keyv';\n",
    express: "import '@agenthost/core';\nimport 'express';\nimport 'prom-client';\n",
    tools: "import '@agenthost/core';\nimport 'mathjs';\n",
    server:
      "import '@agenthost/core';\nimport '@agenthost/storage';\nimport '@agenthost/express';\nimport '@agenthost/tools';\n",
    ...changes,
  };
  for (const [name, source] of Object.entries(sources)) workspacePackage(name, source);
  const paths = Object.fromEntries(
    Object.keys(sources).map((n) => [`@agenthost/${n}`, [`./packages/${n}/src/index.ts`]]),
  );
  write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', paths } }));
  write('examples/demo/src/main.ts', "import '@agenthost/server';\nexport const demo = 1;\n");
  // Beside the entries, and reached by nothing published: a test and a test helper that cross packages.
  write('packages/core/src/index.test.ts', "import '@agenthost/storage';\nimport 'express';\n");
  write('packages/express/src/test-helper.ts', "import '@agenthost/storage';\nimport 'keyv';\n");
}

function check() {
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  const errors = r.stdout.split('\n').filter((line) => line.startsWith('  error '));
  return { status: r.status, errors: errors.map((line) => line.trim()).sort(), stderr: r.stderr };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agenthost-architecture-'));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the architecture check', () => {
  test('passes a workspace that keeps to the table, whatever its tests and test helpers import', () => {
    workspace();
    expect(check()).toStrictEqual({ status: 0, errors: [], stderr: '' });
  });

  test('fails on each import against the table, named by its rule', () => {
    workspace({
      storage: "import '@agenthost/core';\nimport '@agenthost/express';\nimport 'express';\n",
      express: "import '@agenthost/storage';\nimport 'keyv';\n",
      tools: "import '@agenthost/server';\nimport 'keyv';\nimport 'no-such-package';\n",
      server:
        "import '@agenthost/core';\nimport 'keyv';\nimport 'mathjs';\nimport '../../../examples/demo/src/main.js';\n",
    });
    write(
      'packages/core/src/helper.ts',
      "import '../../../examples/demo/src/main.js';\nimport 'express';\nimport 'mathjs';\n",
    );
    write('packages/core/src/index.ts', "import './helper.js';\nimport '@agenthost/tools';\n");
    const { status, errors } = check();
    expect(errors).toStrictEqual([
      'error core-agenthost-packages: packages/core/src/helper.ts → examples/demo/src/main.ts',
      'error core-agenthost-packages: packages/core/src/index.ts → packages/tools/src/index.ts',
      'error core-may-import-only: packages/core/src/helper.ts → node_modules/mathjs/index.js',
      'error core-must-not-import: packages/core/src/helper.ts → node_modules/express/index.js',
      'error express-agenthost-packages: packages/express/src/index.ts → packages/storage/src/index.ts',
      'error express-must-not-import: packages/express/src/index.ts → node_modules/keyv/index.js',
      'error no-package-imports-an-example: packages/core/src/helper.ts → examples/demo/src/main.ts',
      'error no-package-imports-an-example: packages/server/src/index.ts → examples/demo/src/main.ts',
      'error resolvable: packages/tools/src/index.ts → no-such-package',
      'error server-agenthost-packages: packages/server/src/index.ts → examples/demo/src/main.ts',
      'error server-imported-by-no-package: packages/tools/src/index.ts → packages/server/src/index.ts',
      'error server-may-import-only: packages/server/src/index.ts → node_modules/mathjs/index.js',
      'error server-must-not-import: packages/server/src/index.ts → node_modules/keyv/index.js',
      'error storage-agenthost-packages: packages/storage/src/index.ts → packages/express/src/index.ts',
      'error storage-must-not-import: packages/storage/src/index.ts → node_modules/express/index.js',
      'error tools-agenthost-packages: packages/tools/src/index.ts → packages/server/src/index.ts',
      'error tools-must-not-import: packages/tools/src/index.ts → node_modules/keyv/index.js',
    ]);
    expect(status).toBe(errors.length);
  });

  test('fails when an entry point of a published package has no source to start from', () => {
    workspace();
    write('packages/tools/package.json', JSON.stringify({ name: '@agenthost/tools', bin: { tools: './dist/cli.js' } }));
    const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
    expect([r.status, r.stderr]).toStrictEqual([
      1,
      expect.stringContaining('packages/tools: no source for ./dist/cli.js'),
    ]);
  });
});
