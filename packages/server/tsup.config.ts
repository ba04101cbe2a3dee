import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// ESM only: the command and the host load with top-level await, and Node 22.18 can `require` ESM.
export default defineConfig(packageBuild(['src/index.ts', 'src/bin.ts'], { format: ['esm'] }));
