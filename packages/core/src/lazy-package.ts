import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where a module finds its packages: `{ url: import.meta.url, resolve: import.meta.resolve }` (in a
 * CommonJS build, `url` is the file's and `resolve` is absent).
 */
export interface PackageScope {
  url: string;
  resolve?: (specifier: string) => string;
}

/**
 * A package loaded, synchronously, the first time a feature needs it, rather than when its importer
 * is: a provider's package, the price catalog, metrics. What an application never uses then costs it
 * no memory or start-up time (each of these is 1-8 MB of a process's memory once loaded).
 *
 * Pass the importer's own `import.meta`'s `url` and `resolve`, so the package resolves as the
 * importer's `import` would: from an ES module, to the package's ES module build, which Node (22.12
 * and later) loads with `require` and caches as one module with `import`, so an application that
 * imports the package too shares its instance; from a CommonJS build, by `require`.
 *
 * Limits: on Node 24, loading a package while an `import()` of the same package has not finished
 * throws `ERR_REQUIRE_ESM_RACE_CONDITION` (import it before, or after, using the feature); and a
 * bundler does not see these loads, so a bundled application needs these packages in its
 * `node_modules` beside the bundle.
 *
 * @example
 * const promClient = lazyPackage<typeof import('prom-client')>('prom-client', {
 *   url: import.meta.url,
 *   resolve: import.meta.resolve,
 * });
 * new (promClient().Registry)();
 */
export function lazyPackage<T>(specifier: string, scope: PackageScope): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      const load = createRequire(scope.url);
      loaded = (scope.resolve ? load(fileURLToPath(scope.resolve(specifier))) : load(specifier)) as T;
    }
    return loaded;
  };
}
