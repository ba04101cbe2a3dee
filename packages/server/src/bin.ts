#!/usr/bin/env node
// The `agenthost` command. Help is answered here, before anything else is loaded, so it is instant;
// only a real command loads the server.
import { SETTINGS, USAGE } from './help.js';

const args = process.argv.slice(2);
const help = args.includes('--help') || args.includes('-h');
if (args.length === 0 || (help && args[0] !== 'serve')) {
  process.stdout.write(`${USAGE}\n${SETTINGS}`);
  process.exit(args.length === 0 ? 2 : 0);
} else if (help) {
  process.stdout.write(`agenthost serve: the standalone server\n\n${SETTINGS}`);
  process.exit(0);
} else {
  const { runCommand } = await import('./cli.js');
  await runCommand(args);
}
