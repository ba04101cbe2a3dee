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
    // `import.meta.resolve` is absent from a CommonJS build: code that reads it (`lazyPackage`'s
    // callers) then falls back to `require`.
    esbuildOptions(options, context) {
      if (context.format === 'cjs') options.define = { ...options.define, 'import.meta.resolve': 'undefined' };
    },
    ...extra,
  };
}
