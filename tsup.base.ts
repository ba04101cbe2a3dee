import type { Options } from 'tsup';

/** The build every published package shares: ESM + CJS with declarations, for Node 22 and later. */
export function packageBuild(entry: string[], extra: Options = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node22',
    removeNodeProtocol: false,
    tsconfig: 'tsconfig.build.json',
    ...extra,
  };
}
