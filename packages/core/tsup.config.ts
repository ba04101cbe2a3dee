import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/test.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  // A JSON module left external would need an import attribute in the ESM build; bundle it instead.
  noExternal: [/^ajv\/dist\/refs\/json-schema-secure\.json$/],
});
