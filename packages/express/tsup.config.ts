import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// `import.meta.url` (from which packages loaded on first use resolve) in the CommonJS build too.
export default defineConfig(packageBuild(['src/index.ts', 'src/test.ts'], { shims: true }));
