import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

export default defineConfig(packageBuild(['src/index.ts', 'src/test.ts']));
