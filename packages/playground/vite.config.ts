import { defineConfig } from 'vite';

// The browser app: src/app, built into dist/app with hashed file names under assets/. Served at
// /playground, so every URL in the page is relative. Nothing is fetched from elsewhere at run time.
export default defineConfig({
  root: 'src/app',
  base: './',
  // No public folder: every file the page loads is a module Vite hashes.
  publicDir: false,
  build: {
    outDir: '../../dist/app',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Served by the same server that answers the API; one entry, no source maps shipped.
    sourcemap: false,
    target: 'es2022',
    rolldownOptions: {
      onwarn(warning, warn) {
        // React libraries mark their modules 'use client' for server components; a browser bundle ignores it.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
});
