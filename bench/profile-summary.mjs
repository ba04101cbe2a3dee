// Where the time of a `--cpu-prof` profile goes, and how much of it is agenthost's.
//
// For each .cpuprofile given, it prints, as shares of the busy time (every sample but idle ones):
//   - self time by package (agenthost's packages by name, `ai`, `express`, `zod`..., `node` for
//     Node's own JavaScript, and V8's `(garbage collector)` and `(program)`);
//   - who the time is for: each sample goes to the nearest frame on its stack, from the leaf up, that
//     is agenthost's code, the AI SDK's, a library agenthost brings for a feature (request logs,
//     metrics, rate limits, tracing, the stores' drivers), or the HTTP stack's (Express and its modules, Node's HTTP and
//     streams); samples with none of these, GC among them, are the host's too. So a `structuredClone`
//     or a zod parse goes to the agenthost function that called it, a socket write to the host;
//   - agenthost's functions by "own" time: the samples that went to them (their self time plus the
//     library and native code they call directly) — what changing that function could save — and by
//     inclusive time (everything under them, the AI SDK and the socket writes included);
//   - the functions with the most self time, whoever's they are.
// agenthost's frames are mapped through the packages' source maps to `packages/<name>/src/<file>.ts:<line>`.
//
//   node bench/profile-summary.mjs <file.cpuprofile>... [--top 20] [--skip-ms 0] [--from <function>]
//
// `--skip-ms` leaves out the first milliseconds of each profile; `--from` every sample before the
// first one with that function on its stack (`--from agentHostRun`, say): the process's start either way.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AGENTHOST = /\/packages\/(core|express|storage|server|tools|playground)\/dist\//;
const AI_SDK = new Set(['ai', '@ai-sdk/provider', '@ai-sdk/provider-utils', '@ai-sdk/gateway']);
/** What agenthost brings for a feature: logs, metrics, rate limits, tracing, and the stores' drivers. */
const FEATURES =
  /^(pino|pino-http|pino-std-serializers|sonic-boom|fast-redact|@pinojs\/redact|thread-stream|quick-format-unescaped|atomic-sleep|prom-client|tdigest|bintrees|express-rate-limit|rate-limit-redis|@opentelemetry\/.*|keyv|@keyv\/.*|@redis\/.*|redis|cluster-key-slot|pg|pg-.*|postgres-.*|pgpass)$/;
/** The HTTP stack any Express app runs on: the floor pays for it too. */
const HTTP_STACK =
  /^(express|router|body-parser|raw-body|type-is|content-type|path-to-regexp|finalhandler|on-finished|etag|fresh|qs|iconv-lite|send|mime-types|media-typer|http-errors|depd|parseurl|encodeurl|cookie|vary|proxy-addr|accepts|negotiator|cors|bench)$/;
const NODE_HTTP = /^node:(_http_|internal\/http)/;

/** Who a frame's time is for, or `undefined` for code that works for whoever called it (Node, zod, natives). */
function roleOf(pkg, url) {
  if (pkg.startsWith('agenthost/')) return 'agenthost';
  if (AI_SDK.has(pkg)) return 'AI SDK';
  if (FEATURES.test(pkg)) return "agenthost's libraries (logs, metrics, rate limits, store drivers)";
  if (HTTP_STACK.test(pkg) || (pkg === 'node' && NODE_HTTP.test(url))) return 'host (Express, Node HTTP, GC)';
  return undefined;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '20' },
    'skip-ms': { type: 'string', default: '0' },
    from: { type: 'string' },
  },
});
const TOP = Number(values.top);
const SKIP_US = Number(values['skip-ms']) * 1000;

/** The package a frame's script belongs to: `agenthost/<name>`, an npm package, `node`, `bench`, or V8's own. */
function packageOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const own = AGENTHOST.exec(url);
  if (own) return `agenthost/${own[1]}`;
  if (url.startsWith('node:')) return 'node';
  const modules = url.split('/node_modules/');
  if (modules.length > 1) {
    const [first, second] = modules.at(-1).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  return url.includes('/bench/') ? 'bench' : 'other';
}

const maps = new Map();
/** A dist frame's place in the TypeScript source, `packages/<name>/src/<file>.ts:<line>`, when its map says. */
function sourceOf(url, line, column) {
  const file = fileURLToPath(url);
  if (!maps.has(file)) {
    try {
      maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
    } catch {
      maps.set(file, null);
    }
  }
  const entry = maps.get(file)?.findEntry(line, column);
  if (!entry?.originalSource) return `${relative(ROOT, file)}:${line + 1}`;
  const source = entry.originalSource.startsWith('file:')
    ? fileURLToPath(entry.originalSource)
    : resolve(dirname(file), entry.originalSource);
  return `${relative(ROOT, source)}:${entry.originalLine + 1}`;
}

/** A readable place of a frame: the source of agenthost's, the package-relative file of others'. */
function placeOf(frame) {
  const { url, lineNumber, columnNumber } = frame;
  if (!url) return '';
  if (AGENTHOST.test(url)) return sourceOf(url, lineNumber, columnNumber);
  const inPackage = url.split('/node_modules/').at(-1);
  return `${inPackage.startsWith('file:') ? relative(ROOT, fileURLToPath(inPackage)) : inPackage}:${lineNumber + 1}`;
}

/** The profile's nodes by id, each with its parent, package and function key. */
function readNodes(profile) {
  const nodes = new Map();
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    const pkg = packageOf(frame);
    const key = `${frame.functionName}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`;
    nodes.set(node.id, { frame, pkg, key, role: roleOf(pkg, frame.url), parent: undefined });
  }
  for (const node of profile.nodes) for (const child of node.children ?? []) nodes.get(child).parent = node.id;
  return nodes;
}

/** Whether the stack of node `id` has a frame of the function named `name`. */
function onStack(nodes, id, name) {
  for (let node = nodes.get(id); node; node = nodes.get(node.parent)) if (node.frame.functionName === name) return true;
  return false;
}

/**
 * Each sample's node and weight in microseconds (the time until the next sample), from `SKIP_US`
 * and the first sample with `values.from` on its stack.
 */
function* samples(profile, nodes) {
  const { samples: ids, timeDeltas } = profile;
  const mean = timeDeltas.reduce((a, b) => a + b, 0) / Math.max(1, timeDeltas.length);
  let at = 0;
  let started = values.from === undefined;
  for (let i = 0; i < ids.length; i++) {
    at += timeDeltas[i];
    if (at < SKIP_US) continue;
    started ||= onStack(nodes, ids[i], values.from);
    if (started) yield [ids[i], timeDeltas[i + 1] ?? mean];
  }
}

const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);

/** Sums a profile's samples into self, own and inclusive times, by package, owner and function. */
function summarize(profile) {
  const nodes = readNodes(profile);
  const frames = new Map();
  const totals = {
    busy: 0,
    idle: 0,
    byPackage: new Map(),
    byOwner: new Map(),
    byOwnerPackage: new Map(),
    hostSelf: new Map(),
    self: new Map(),
    own: new Map(),
    inclusive: new Map(),
  };
  for (const [id, us] of samples(profile, nodes)) {
    const leaf = nodes.get(id);
    if (leaf.pkg === '(idle)') {
      totals.idle += us;
      continue;
    }
    totals.busy += us;
    add(totals.byPackage, leaf.pkg, us);
    add(totals.self, leaf.key, us);
    frames.set(leaf.key, leaf);
    const seen = new Set();
    let owner;
    for (let node = leaf; node; node = nodes.get(node.parent)) {
      if (!owner && node.role) {
        owner = node;
        if (node.role === 'agenthost') add(totals.own, node.key, us);
      }
      if (node.role === 'agenthost' && !seen.has(node.key)) {
        seen.add(node.key);
        add(totals.inclusive, node.key, us);
        frames.set(node.key, node);
      }
    }
    add(totals.byOwner, owner?.role ?? 'host (Express, Node HTTP, GC)', us);
    if (owner && owner.role !== 'agenthost') add(totals.byOwnerPackage, `${owner.role}|${owner.pkg}`, us);
    if (!owner || owner.role.startsWith('host')) add(totals.hostSelf, leaf.key, us);
  }
  return { ...totals, frames };
}

const pct = (us, total) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const top = (map, n = TOP) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);

function describe({ frame }) {
  return `${frame.functionName || '(anonymous)'}  ${placeOf(frame)}`.trim();
}

function print(file, s) {
  const lines = [`\n# ${relative(process.cwd(), file)}`];
  lines.push(
    `busy ${(s.busy / 1e6).toFixed(2)} s, idle ${(s.idle / 1e6).toFixed(2)} s (shares below are of the busy time)`,
  );
  lines.push('\n## who the time is for');
  for (const [owner, us] of top(s.byOwner)) {
    lines.push(`${pct(us, s.busy)}  ${owner}`);
    for (const [key, part] of top(s.byOwnerPackage, 50)
      .filter(([k]) => k.startsWith(`${owner}|`))
      .slice(0, 6))
      lines.push(`        ${pct(part, s.busy)}  ${key.split('|')[1]}`);
  }
  lines.push('\n## self time by package');
  for (const [pkg, us] of top(s.byPackage, 15)) lines.push(`${pct(us, s.busy)}  ${pkg}`);
  lines.push("\n## agenthost's functions by own time (self + the library and native code they call directly)");
  for (const [key, us] of top(s.own)) lines.push(`${pct(us, s.busy)}  ${describe(s.frames.get(key))}`);
  lines.push("\n## agenthost's functions by inclusive time");
  for (const [key, us] of top(s.inclusive)) lines.push(`${pct(us, s.busy)}  ${describe(s.frames.get(key))}`);
  lines.push("\n## the host's time by function (self)");
  for (const [key, us] of top(s.hostSelf)) {
    const node = s.frames.get(key);
    lines.push(`${pct(us, s.busy)}  [${node.pkg}] ${describe(node)}`);
  }
  lines.push('\n## self time by function');
  for (const [key, us] of top(s.self)) {
    const node = s.frames.get(key);
    lines.push(`${pct(us, s.busy)}  [${node.pkg}] ${describe(node)}`);
  }
  console.log(lines.join('\n'));
}

if (positionals.length === 0) {
  console.error(
    'usage: node bench/profile-summary.mjs <file.cpuprofile>... [--top 20] [--skip-ms 0] [--from <function>]',
  );
  process.exitCode = 2;
}
for (const file of positionals) print(file, summarize(JSON.parse(readFileSync(file, 'utf8'))));
