import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// ESM only, like the server that serves it. `clean` is off: the browser build writes dist/app.
export default defineConfig(packageBuild(['src/index.ts'], { format: ['esm'], clean: false }));
