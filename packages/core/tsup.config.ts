import { copyFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

export default defineConfig(
  packageBuild(['src/index.ts', 'src/test.ts'], {
    // The schema worker is plain JavaScript that worker threads load by path, beside the bundle.
    onSuccess: () => copyFile('src/structured-output/schema-worker.mjs', 'dist/schema-worker.mjs'),
    // `import.meta.url` (which finds the worker) in the CommonJS build too.
    shims: true,
  }),
);
