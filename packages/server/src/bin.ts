#!/usr/bin/env node
// The `agenthost` command. Help is answered here, before anything else is loaded, so it is instant;
// only a real command loads the server.
import { SETTINGS, USAGE } from './help.js';
import { capYoungGeneration } from './young-generation.js';

const args = process.argv.slice(2);
const help = args.includes('--help') || args.includes('-h');
if (args.length === 0 || (help && args[0] !== 'serve')) {
  process.stdout.write(`${USAGE}\n${SETTINGS}`);
  process.exit(args.length === 0 ? 2 : 0);
} else if (help) {
  process.stdout.write(`agenthost serve: the standalone server\n\n${SETTINGS}`);
  process.exit(0);
} else {
  // A server starts again at once with its young generation capped (same process); other commands need not.
  if (args[0] === 'serve') capYoungGeneration();
  const { runCommand } = await import('./cli.js');
  await runCommand(args);
}
