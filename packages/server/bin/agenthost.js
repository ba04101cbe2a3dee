#!/usr/bin/env node
// The `agenthost` command. A committed file, so that package managers can link it before a first build
// of the repository; the command itself is dist/bin.js.
try {
  await import('../dist/bin.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/dist[\\/]bin\.js/.test(String(error.message))) throw error;
  process.stderr.write('agenthost: the package is not built (run `pnpm build` in the repository)\n');
  process.exit(1);
}
