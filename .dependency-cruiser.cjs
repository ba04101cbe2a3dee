// "Who may import whom" (docs/architecture.md) as rules over the import graph of the published files.
// `pnpm lint:architecture` (scripts/check-architecture.mjs) cruises from each published package's
// entry points, so tests and test support, which may cross packages, are never reached.
// Rule names follow the table: "<package>-must-not-import" for its "must not import" column,
// "<package>-may-import-only" for the npm packages of its "may import" column, and
// "<package>-agenthost-packages" for the @agenthost packages of that column.

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `name` and its DefinitelyTyped package (`@types/express`, `@types/keyv__redis`), as regex alternatives. */
const withTypes = (name) => [name, `@types/${name.replace(/^@/, '').replace('/', '__')}`].map(escapeRegex);

/** A path pattern that matches a file of one of the npm packages `names` (or of its types), wherever pnpm put it. */
const npm = (...names) => `(^|/)node_modules/(${names.flatMap(withTypes).join('|')})/`;

/** A package's file (its own, or one it imports by `@agenthost/<name>`, resolved to source). */
const pkg = (name) => `^packages/${name}/`;

/** Packages that are storage clients, for the rows that may import none of them. */
const STORAGE_CLIENTS = [
  'keyv',
  '@keyv/redis',
  '@keyv/postgres',
  '@keyv/sqlite',
  'pg',
  'redis',
  'ioredis',
  'better-sqlite3',
];

/** The table, one row a package: the npm packages it may import, and those it must not. */
const TABLE = {
  core: {
    may: [
      'ai',
      '@ai-sdk/provider',
      '@ai-sdk/openai',
      '@ai-sdk/anthropic',
      '@ai-sdk/google',
      '@ai-sdk/openai-compatible',
      '@pydantic/genai-prices',
      'zod',
      'ajv',
      're2js',
      'piscina',
      '@opentelemetry/api',
    ],
    mustNot: ['express', ...STORAGE_CLIENTS],
    packages: [],
  },
  storage: {
    may: ['keyv', '@keyv/redis', '@keyv/postgres', 'pg'],
    mustNot: ['express'],
    packages: ['core'],
  },
  express: {
    may: ['express', 'express-rate-limit', 'prom-client', 'bytes', '@opentelemetry/api', 'zod', 'ai'],
    mustNot: STORAGE_CLIENTS,
    packages: ['core'],
  },
  tools: {
    may: ['ai', 'zod', 'mathjs', '@ai-sdk/mcp'],
    mustNot: ['express', ...STORAGE_CLIENTS],
    packages: ['core'],
  },
  server: {
    may: [
      'express',
      'cors',
      'rate-limit-redis',
      'pino',
      'pino-http',
      'zod',
      '@ai-sdk/otel',
      '@opentelemetry/api',
      '@opentelemetry/core',
      '@opentelemetry/context-async-hooks',
      '@opentelemetry/exporter-trace-otlp-http',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-trace',
      '@scalar/express-api-reference',
      '@scalar/api-reference',
    ],
    mustNot: STORAGE_CLIENTS,
    packages: ['core', 'storage', 'express', 'tools', 'playground'],
  },
  // Its Node entry only names the folder of the built app; the app's own sources (src/app, React and
  // the AI SDK, bundled by Vite) are browser code that no entry point imports.
  playground: {
    may: [],
    mustNot: ['express', ...STORAGE_CLIENTS],
    packages: [],
  },
};

/** The two rules of one row: the npm packages it must not import, and any that are not in its row. */
function npmRules(name, row) {
  return [
    {
      name: `${name}-must-not-import`,
      comment: `@agenthost/${name} must not import ${row.mustNot.join(', ')} (docs/architecture.md)`,
      severity: 'error',
      from: { path: pkg(name) },
      to: { path: npm(...row.mustNot) },
    },
    {
      name: `${name}-may-import-only`,
      comment: `@agenthost/${name} may import only ${row.may.join(', ')} and Node built-ins (docs/architecture.md)`,
      severity: 'error',
      from: { path: pkg(name) },
      to: { path: '(^|/)node_modules/', pathNot: npm(...row.may, ...row.mustNot) },
    },
  ];
}

/** The rule on workspace packages: a row may import its own files and the packages it names, no other. */
function workspaceRule(name, row) {
  const allowed = [name, ...row.packages].join('|');
  return {
    name: `${name}-agenthost-packages`,
    comment: `@agenthost/${name} may import ${row.packages.length ? row.packages.map((p) => `@agenthost/${p}`).join(', ') : 'no other @agenthost package'} (docs/architecture.md)`,
    severity: 'error',
    from: { path: pkg(name) },
    to: { path: '^(packages|examples)/', pathNot: `^packages/(${allowed})/` },
  };
}

module.exports = {
  forbidden: [
    ...Object.entries(TABLE).flatMap(([name, row]) => [workspaceRule(name, row), ...npmRules(name, row)]),
    {
      name: 'server-imported-by-no-package',
      comment: '@agenthost/server composes the others; no package imports it (docs/architecture.md)',
      severity: 'error',
      from: { path: '^packages/', pathNot: pkg('server') },
      to: { path: pkg('server') },
    },
    {
      name: 'no-package-imports-an-example',
      comment: 'examples may import every package; nothing imports an example (docs/architecture.md)',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^examples/' },
    },
    {
      name: 'resolvable',
      comment:
        'an import that does not resolve (for a package: one it does not depend on) would escape every rule above',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Type-only imports count: a published .d.ts that names a forbidden package forbids it too.
    tsPreCompilationDeps: true,
    // The path map of tsconfig.base.json resolves `@agenthost/*` to the packages' sources, as the
    // type-check does, so the rules see which package an import reaches without a build.
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    skipAnalysisNotInRules: false,
  },
};
