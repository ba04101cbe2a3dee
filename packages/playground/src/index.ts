import { fileURLToPath } from 'node:url';

/**
 * The absolute path of the playground's static files (`index.html` and its hashed `assets/`), for a
 * server to serve. Relative to the package root, so it is the same from the sources and the build.
 *
 * @example
 * app.use('/playground', express.static(playgroundDir));
 */
export const playgroundDir: string = fileURLToPath(new URL('../dist/app', import.meta.url));

/** The playground's page, inside {@link playgroundDir}. */
export const PLAYGROUND_INDEX = 'index.html';
