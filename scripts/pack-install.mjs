#!/usr/bin/env node
// Installs the published packages as a user would get them: builds them, packs each (`pnpm pack`,
// which turns `workspace:` ranges into versions), installs the tarballs with npm into a new project
// in a temporary folder (third-party packages come from the npm registry), loads every export as
// ESM and as CommonJS, runs the README's in-process and mounted snippets, read from README.md (the
// code fence after each `<!-- snippet: name -->` comment), on the echo model, type-checks them, and
// runs each command a package installs with --help.
//
//   node scripts/pack-install.mjs         (needs pnpm and npm on the PATH; KEEP=1 keeps the folder)
//
// The packages are those of scripts/published-packages.mjs. Exits non-zero on any failure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publishedPackages } from './published-packages.mjs';

const repository = join(import.meta.dirname, '..');
const started = Date.now();
const log = (message) => console.log(`pack-install (${((Date.now() - started) / 1000).toFixed(1)}s): ${message}`);

/** Runs a command to its end; throws with its output when it fails. */
function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000, ...options });
  if (r.status !== 0) {
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
    throw new Error(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${output}`);
  }
  return r.stdout;
}

/** The code of the fenced block that follows `<!-- snippet: name` in the README. */
function snippet(readme, name) {
  const marker = readme.indexOf(`<!-- snippet: ${name} `);
  const fence = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(marker));
  if (marker < 0 || !fence || fence.index > readme.slice(marker).indexOf('-->') + 4)
    throw new Error(`README.md has no "<!-- snippet: ${name} ... -->" comment right before a \`\`\`ts block`);
  return fence[1];
}

/** Packs every package into `folder`; checks that each tarball ships its README and LICENSE and no test or source. */
function pack(packages, folder) {
  return packages.map(({ dir, name, manifest }) => {
    run('pnpm', ['pack', '--pack-destination', folder], { cwd: dir });
    const tarball = join(folder, `${name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`);
    const files = run('tar', ['-tzf', tarball]).split('\n').filter(Boolean);
    for (const needed of ['package/package.json', 'package/README.md', 'package/LICENSE'])
      assert.ok(files.includes(needed), `${name}: the tarball lacks ${needed.slice(8)}`);
    const stray = files.filter((f) => /\.test\.|^package\/src\//.test(f));
    assert.deepEqual(stray, [], `${name}: the tarball ships tests or sources`);
    return tarball;
  });
}

/** The required peer dependencies of the packages, which the new project installs beside them. */
function peers(packages) {
  const ranges = {};
  for (const { manifest } of packages) {
    for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {}))
      if (!manifest.peerDependenciesMeta?.[peer]?.optional) ranges[peer] = range;
  }
  return ranges;
}

/** The type-checker and types the README's TypeScript needs, at the repository's own versions. */
function typeTools() {
  const { devDependencies } = JSON.parse(readFileSync(join(repository, 'package.json'), 'utf8'));
  return Object.fromEntries(
    ['typescript', '@types/node', '@types/express'].map((name) => [name, devDependencies[name]]),
  );
}

/** A new npm project in `folder` that depends on the tarballs (and on them alone for @agenthost/*). */
function install(folder, packages, tarballs) {
  const local = Object.fromEntries(packages.map(({ name }, i) => [name, `file:${tarballs[i]}`]));
  const manifest = {
    name: 'agenthost-pack-install',
    private: true,
    type: 'module',
    dependencies: { ...peers(packages), ...local },
    devDependencies: typeTools(),
    overrides: local,
  };
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: folder });
}

/** Every export path of every package (`@agenthost/core`, `@agenthost/core/test`...), but package.json. */
function exportPaths(packages) {
  return packages.flatMap(({ name, manifest }) =>
    Object.keys(manifest.exports ?? { '.': null })
      .filter((path) => !path.endsWith('package.json'))
      .map((path) => (path === '.' ? name : `${name}/${path.slice(2)}`)),
  );
}

/** Runs `code` as a TypeScript module in `folder` (Node strips the types) and returns what it printed, parsed. */
function runModule(folder, file, code, env = {}) {
  writeFileSync(join(folder, file), code);
  const stdout = run(process.execPath, [file], { cwd: folder, env: { ...process.env, ...env }, timeout: 60_000 });
  return JSON.parse(stdout);
}

/** Ids and times as the placeholders `<agt_>`, `<ses_>` and `<time>`, so that whole answers compare. */
const placeholders = (value) =>
  JSON.parse(
    JSON.stringify(value)
      .replace(/\b(agt|ses)_[A-Za-z0-9_-]{22}\b/g, '<$1_>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>'),
  );

/** What the mounted snippet's app answers, asked over HTTP once the snippet has run. */
const MOUNTED_EPILOGUE = `
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = 'http://127.0.0.1:' + (server.address() as import('node:net').AddressInfo).port;
async function call(method: string, path: string, key: string, body?: object) {
  const headers = { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) };
  const res = await fetch(base + path, { method, headers, body: body && JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}
const key = process.env.ACME_API_KEY ?? '';
const created = await call('POST', '/api/v1/agents', key, { name: 'Mounted', instruction: 'Be brief.', model: 'echo' });
const ran = await call('POST', '/api/agents/' + created.body.data.agent_id + '/run', key, { input: 'Hi' });
const listed = await call('GET', '/api/v1/agents', key);
const refused = await call('GET', '/api/v1/agents', 'not-the-key-0123456789');
server.close();
console.log(JSON.stringify({ created, ran, listed: listed.body.data.map((a: { name: string }) => a.name), refused }));
`;

/** What the mounted host's app answers, asked over HTTP once the snippet has run; then a graceful close. */
const MOUNTED_HOST_EPILOGUE = `
await new Promise((resolve) => (server.listening ? resolve(undefined) : server.once('listening', resolve)));
const base = 'http://127.0.0.1:' + (server.address() as import('node:net').AddressInfo).port;
async function call(method: string, path: string, body?: object) {
  const headers = { 'x-api-key': process.env.ACME_API_KEY ?? '', ...(body ? { 'content-type': 'application/json' } : {}) };
  const res = await fetch(base + path, { method, headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text.length > 0 };
}
const created = await call('POST', '/api/v1/agents', { name: 'Hosted', instruction: 'Be brief.', model: 'echo' });
const ran = await call('POST', '/api/agents/' + created.body.data.agent_id + '/run', { input: 'Hi' });
const ready = await call('GET', '/api/v1/readyz');
const metrics = await call('GET', '/api/v1/metrics');
server.close();
const closed = await host.close({ deadlineMs: 5_000 });
console.log(JSON.stringify({ created, ran, ready: ready.status, metrics, closed }));
`;

/**
 * What the snippets' run of "Hi" answers. Echo-model tokens: 3 a message plus its words and marks;
 * "Be brief." 6, "Hi" 4; "Echo: Hi" 3.
 */
const RAN = {
  output: 'Echo: Hi',
  session_id: '<ses_>',
  status: 'completed',
  pending_approvals: [],
  metadata: {
    model: 'echo',
    agent_version: 1,
    tool_used: null,
    tools_used: [],
    tokens: { prompt: 10, completion: 3, total: 13 },
    omitted_messages: 0,
    cost: 0,
  },
};

/** An envelope of success around `data`. */
const ok = (data) => ({ status: 200, body: { success: true, data, status: 200 } });

/** Runs the in-process snippet as written, then prints what it computed. */
function checkInProcess(folder, inProcess) {
  const printed = runModule(
    folder,
    'in-process.ts',
    `${inProcess}\nconsole.log(JSON.stringify({ output, session_id }));\n`,
  );
  assert.deepEqual(placeholders(printed), { output: 'Echo: Hello', session_id: '<ses_>' });
}

/** Runs the mounted snippet after the in-process one (which makes `service`) in a bare Express app. */
function checkMounted(folder, inProcess, mounted) {
  const program = `import express from 'express';\n${inProcess}\nconst app = express();\n${mounted}\n${MOUNTED_EPILOGUE}`;
  const printed = runModule(folder, 'mounted.ts', program, { ACME_API_KEY: 'acme-key-0123456789abcdef' });
  assert.deepEqual(placeholders(printed), {
    created: ok({ agent_id: '<agt_>', created_at: '<time>' }),
    ran: ok(RAN),
    listed: ['Support', 'Mounted'],
    refused: {
      status: 401,
      body: { success: false, error: 'Invalid API key provided', code: 'unauthenticated', status: 401 },
    },
  });
}

/** Runs the mounted-host snippet as written (on a port the system picks), calls it, and closes the host. */
function checkMountedHost(folder, mountedHost) {
  const printed = runModule(folder, 'mounted-host.ts', `${mountedHost}\n${MOUNTED_HOST_EPILOGUE}`, {
    ACME_API_KEY: 'acme-key-0123456789abcdef',
    PORT: '0',
  });
  assert.deepEqual(placeholders(printed), {
    created: ok({ agent_id: '<agt_>', created_at: '<time>' }),
    ran: ok(RAN),
    ready: 200,
    metrics: { status: 200, body: true },
    closed: { aborted: 0 },
  });
}

/**
 * Loads every export of every package, as ESM and as CommonJS, and uses from CommonJS each feature whose
 * package is loaded on first use; returns their names.
 */
function checkExports(folder, packages) {
  const paths = exportPaths(packages);
  const esm = paths.map((p) => `await import(${JSON.stringify(p)});`).join('\n');
  run(process.execPath, ['--input-type=module', '-e', esm], { cwd: folder });
  const cjs = paths.map((p) => `require(${JSON.stringify(p)});`).join('\n');
  run(process.execPath, ['-e', cjs], { cwd: folder });
  assert.match(run(process.execPath, ['-e', LAZY_PACKAGES_CJS], { cwd: folder }), /lazy packages: CommonJS ok/);
  return paths;
}

/**
 * Uses, from the CommonJS builds, each feature whose package is loaded on first use (a provider, the
 * catalog, metrics, rate limits, the schema workers), which requiring the entry points alone no longer loads.
 */
const LAZY_PACKAGES_CJS = `
const assert = require('node:assert/strict');
const core = require('@agenthost/core');
const { createMetrics, createAgentRouter, staticKeys } = require('@agenthost/express');
assert.equal(core.openAIProvider({ apiKey: 'k' }).provider.languageModel('gpt-4o').modelId, 'gpt-4o');
assert.equal(typeof core.anthropicProvider({ apiKey: 'k' }).provider.languageModel, 'function');
assert.equal(typeof core.googleProvider({ apiKey: 'k' }).provider.languageModel, 'function');
assert.equal(core.compatibleProvider('local', { baseURL: 'http://127.0.0.1:9' }).name, 'local');
assert.ok(core.catalogEntry('openai', 'gpt-4o').context_window > 0);
assert.match(createMetrics({ processMetrics: false }).registry.contentType, /text\\/plain/);
const rateLimit = { perKey: { limit: 10, windowMs: 60000 }, failedAuth: { limit: 5, windowMs: 60000 } };
const service = new core.AgentService({ store: new (require('@agenthost/storage').MemoryStore)(), models: core.staticModels({}) });
createAgentRouter(service, { resolveKey: staticKeys([{ account: 'a', key: 'k'.repeat(32) }]), rateLimit });
const sandbox = new core.SchemaSandbox({ threads: 1 });
sandbox.check('a', '{"type":"string"}').then(() => sandbox.close()).then(() => console.log('lazy packages: CommonJS ok'));
`;

/** Type-checks the programs run above (the README's snippets in them) against the installed packages' types. */
function checkTypes(folder) {
  const compilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
  };
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
  run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: folder });
}

/** Runs every command a package installs (its `bin`) with `--help`; returns their names. */
function checkBins(folder, packages) {
  const names = packages.flatMap(({ name, manifest }) =>
    typeof manifest.bin === 'string' ? [name.replace(/^@[^/]+\//, '')] : Object.keys(manifest.bin ?? {}),
  );
  for (const name of names) {
    const help = run(join(folder, 'node_modules/.bin', name), ['--help'], { cwd: folder, timeout: 30_000 });
    assert.ok(help.trim().length > 0, `${name} --help printed nothing`);
  }
  return names;
}

function main() {
  const packages = publishedPackages();
  const readme = readFileSync(join(repository, 'README.md'), 'utf8');
  const [inProcess, mounted] = [snippet(readme, 'in-process'), snippet(readme, 'mounted')];
  const mountedHost = snippet(readme, 'mounted-host');
  const folder = mkdtempSync(join(tmpdir(), 'agenthost-pack-install-'));
  try {
    run('pnpm', [...packages.flatMap(({ name }) => ['--filter', name]), 'build'], { cwd: repository });
    log(`built ${packages.map((p) => p.name).join(', ')}`);
    mkdirSync(join(folder, 'tarballs'));
    const tarballs = pack(packages, join(folder, 'tarballs'));
    log(`packed ${tarballs.length} tarballs, each with its README and LICENSE`);
    install(folder, packages, tarballs);
    log(`installed them with npm into a new project (${folder})`);
    log(`loaded as ESM and CommonJS: ${checkExports(folder, packages).join(', ')}`);
    checkInProcess(folder, inProcess);
    log("ran README.md's in-process snippet");
    checkMounted(folder, inProcess, mounted);
    log("ran README.md's mounted snippet and called its app over HTTP");
    checkMountedHost(folder, mountedHost);
    log("ran README.md's mounted-host snippet, called its app over HTTP and closed the host");
    checkTypes(folder);
    log("type-checked the snippets against the packages' types");
    const bins = checkBins(folder, packages);
    log(bins.length ? `ran ${bins.map((b) => `${b} --help`).join(', ')}` : 'no package installs a command');
  } finally {
    if (process.env.KEEP) log(`kept ${folder}`);
    else rmSync(folder, { recursive: true, force: true });
  }
}

main();
