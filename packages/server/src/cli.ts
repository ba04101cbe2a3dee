import { USAGE } from './help.js';
import { keysCommand } from './keys-command.js';
import { serve } from './serve.js';

/** Runs one `agenthost` command (`serve`, `keys ...`); help was answered before this module loaded. */
export async function runCommand(args: string[]): Promise<void> {
  const [command] = args;
  if (command === 'serve') await serve(process.env);
  else if (command === 'keys') await keysCommand(args, process.env);
  else {
    process.stderr.write(`agenthost: unknown command "${command}"\n\n${USAGE}`);
    process.exit(2);
  }
}
