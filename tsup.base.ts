import type { Options } from 'tsup';

/** The build every published package shares: ESM + CJS with declarations, for Node 20. */
export function packageBuild(entry: string[], extra: Options = {}): Options {
  return { entry, format: ['esm', 'cjs'], dts: true, sourcemap: true, clean: true, target: 'node20', tsconfig: 'tsconfig.build.json', ...extra };
}
