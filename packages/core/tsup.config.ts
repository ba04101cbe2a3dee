import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

export default defineConfig(
  packageBuild(['src/index.ts', 'src/test.ts'], {
    // A JSON module left external would need an import attribute in the ESM build; bundle it instead.
    noExternal: [/^ajv\/dist\/refs\/json-schema-secure\.json$/],
  }),
);
