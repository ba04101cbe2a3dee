import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const TESTS = ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'scripts/**/*.test.ts'];
/** Tests that measure the server's responsiveness run alone, after the others, so no other test's load counts against it. */
const ISOLATED = ['packages/*/src/**/*.isolated.test.ts', 'examples/*/src/**/*.isolated.test.ts'];

export default defineConfig({
  resolve: {
    // Tests run against the packages' source; the build is checked separately (publint, attw, smoke tests).
    alias: [
      { find: /^@agenthost\/core\/test$/, replacement: src('./packages/core/src/test.ts') },
      { find: /^@agenthost\/core$/, replacement: src('./packages/core/src/index.ts') },
      { find: /^@agenthost\/storage\/test$/, replacement: src('./packages/storage/src/test.ts') },
      { find: /^@agenthost\/storage$/, replacement: src('./packages/storage/src/index.ts') },
      { find: /^@agenthost\/express\/test$/, replacement: src('./packages/express/src/test.ts') },
      { find: /^@agenthost\/express$/, replacement: src('./packages/express/src/index.ts') },
      { find: /^@agenthost\/tools$/, replacement: src('./packages/tools/src/index.ts') },
      { find: /^@agenthost\/playground$/, replacement: src('./packages/playground/src/index.ts') },
      { find: /^@agenthost\/server$/, replacement: src('./packages/server/src/index.ts') },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // CI reads a machine-readable copy of the results to print one summary line per Node version.
    reporters: process.env.VITEST_JSON_REPORT
      ? ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT }]]
      : ['default'],
    projects: [
      { extends: true, test: { name: 'tests', include: TESTS, exclude: ISOLATED, sequence: { groupOrder: 1 } } },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
          // Their bounds are tens of milliseconds, where the faults they guard against block for seconds: a
          // machine busy with other work can miss a bound once, a regression misses it every time.
          retry: 2,
        },
      },
    ],
  },
});
