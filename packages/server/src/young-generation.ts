// The standalone server's cap on V8's young generation, applied by starting Node again in the same
// process (`process.execve`: same pid, same standard streams) with the flag, before anything loads.

/** The largest semi-space of V8's young generation, in MiB, that `agenthost serve` starts with. */
export const SEMI_SPACE_MB = 16;

/** The flag, in any of the spellings V8 accepts (dashes or underscores), as a whole argument or word. */
const SEMI_SPACE_FLAG = /(?:^|\s)--max[-_]semi[-_]space[-_]size(?:[=\s]|$)/;

/** Whether the operator chose the young generation's size: the flag among Node's own or in `NODE_OPTIONS`. */
export function youngGenerationChosen(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return execArgv.some((arg) => SEMI_SPACE_FLAG.test(arg)) || SEMI_SPACE_FLAG.test(nodeOptions ?? '');
}

/**
 * The command line of the same command with the cap: Node, its own flags as given, the cap, then the
 * script and its arguments.
 */
export function cappedCommandLine(execPath: string, execArgv: readonly string[], argv: readonly string[]): string[] {
  return [execPath, ...execArgv, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...argv.slice(1)];
}

type Execve = (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;

/**
 * Starts this process again with V8's young generation capped at {@link SEMI_SPACE_MB} MiB a
 * semi-space, unless the operator chose a size (`--max-semi-space-size` in Node's flags or in
 * `NODE_OPTIONS`) or Node cannot replace a process (`process.execve`: not on Windows; `null`); returns only then.
 *
 * Left to itself, V8 doubles the young generation (to 64 MiB a semi-space on a machine with a large
 * heap limit) as a busy server's scavenges add up, which makes the server's resident memory under load
 * depend on how long it has run rather than on what it holds (docs/performance.md, "Memory"). The
 * cap keeps it flat at no measured cost in runs per second.
 */
export function capYoungGeneration(execve: Execve | null = process.execve?.bind(process) ?? null): void {
  if (!execve || youngGenerationChosen(process.execArgv, process.env.NODE_OPTIONS)) return;
  const emitWarning = process.emitWarning;
  // `process.execve` is experimental, and says so on stderr each time it is called.
  process.emitWarning = () => {};
  try {
    execve(process.execPath, cappedCommandLine(process.execPath, process.execArgv, process.argv), process.env);
  } catch (error) {
    // A Node that cannot start itself again (its binary gone, say) is still a server: it goes on uncapped.
    process.stderr.write(
      `agenthost: could not cap V8's young generation (${(error as Error).message}); going on without\n`,
    );
  } finally {
    process.emitWarning = emitWarning;
  }
}
