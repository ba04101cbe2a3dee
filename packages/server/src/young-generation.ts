// The standalone server's cap on V8's young generation, applied by starting Node again in the same
// process (`process.execve`: same pid, same standard streams) with the flag, before anything loads.
// It is loaded before `agenthost --help` answers, which must load nothing else: Node's modules are
// taken with `process.getBuiltinModule` when needed, not imported.

/** The largest semi-space of V8's young generation, in MiB, that `agenthost serve` starts with. */
export const SEMI_SPACE_MB = 16;

/**
 * Set in the environment of the process started again, and taken out of it there: that process never
 * starts itself again, whatever its flags say.
 */
export const CAPPED_MARK = 'AGENTHOST_YOUNG_GENERATION_CAPPED';

/** A Node flag as a whole argument or word, quoted or not, with or without a value. */
const nodeFlag = (name: string) => new RegExp(`(?:^|[\\s"'])--${name}(?:[=\\s"']|$)`);

/** The flag, in any of the spellings V8 accepts (dashes or underscores). */
const SEMI_SPACE_FLAG = nodeFlag('max[-_]semi[-_]space[-_]size');
/**
 * `--inspect`, `--inspect-brk`, `--inspect-wait`, `--inspect-port` and its alias `--debug-port`, with
 * dashes or underscores as Node accepts them: a debugger attached or waited for.
 */
const INSPECT_FLAG = nodeFlag('(?:inspect(?:[-_](?:brk|wait|port))?|debug[-_]port)');

const mentions = (flag: RegExp, execArgv: readonly string[], nodeOptions: string | undefined) =>
  execArgv.some((arg) => flag.test(arg)) || flag.test(nodeOptions ?? '');

/** Whether the operator chose the young generation's size: the flag among Node's own or in `NODE_OPTIONS`. */
export function youngGenerationChosen(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return mentions(SEMI_SPACE_FLAG, execArgv, nodeOptions);
}

/**
 * The command line of the same command with the cap: Node, its own flags as given, the cap, then the
 * script and its arguments.
 */
export function cappedCommandLine(execPath: string, execArgv: readonly string[], argv: readonly string[]): string[] {
  return [execPath, ...execArgv, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...argv.slice(1)];
}

type Execve = (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;

/** What of this process decides whether it may start again: the parts of `process` read. */
export interface ProcessFacts {
  platform: NodeJS.Platform;
  execPath: string;
  execArgv: readonly string[];
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Set when a parent talks to this process over IPC (`child_process.fork`, a `cluster` worker). */
  send?: unknown;
}

/**
 * Why this process must not start again, or `undefined` when it may. The operator's own size, a
 * debugger, an IPC channel (Node takes the channel's and a cluster worker's variables out of
 * `process.env` at start, so a process started again would lose its parent), an executable that
 * cannot be run (an older Node aborts on a failed `execve` instead of throwing), and Windows, which
 * has no `execve`, each leave the process as it is.
 */
export function reasonNotToRestart(facts: ProcessFacts): string | undefined {
  const nodeOptions = facts.env.NODE_OPTIONS;
  if (facts.env[CAPPED_MARK] !== undefined) return 'started again already';
  if (youngGenerationChosen(facts.execArgv, nodeOptions)) return 'the operator chose a size';
  if (facts.platform === 'win32' || (facts.platform as string) === 'os400') return 'no execve on this platform';
  if (facts.send !== undefined) return 'a parent talks to it over IPC';
  if (mentions(INSPECT_FLAG, facts.execArgv, nodeOptions)) return 'a debugger';
  try {
    const fs = process.getBuiltinModule('node:fs');
    fs.accessSync(facts.execPath, fs.constants.X_OK);
  } catch {
    return 'its executable cannot be run';
  }
  return undefined;
}

/**
 * Starts this process again with V8's young generation capped at {@link SEMI_SPACE_MB} MiB a
 * semi-space, and returns only when it does not: see {@link reasonNotToRestart}, or when Node cannot
 * replace a process (`execve` `null`: a Node before 22.15).
 *
 * Left to itself, V8 doubles the young generation (to 64 MiB a semi-space on a machine with a large
 * heap limit) as a busy server's scavenges add up, which makes the server's resident memory under load
 * depend on how long it has run rather than on what it holds (docs/performance.md, "Memory").
 */
export function capYoungGeneration(
  execve: Execve | null = process.execve?.bind(process) ?? null,
  facts: ProcessFacts = process,
): void {
  const marked = facts.env[CAPPED_MARK] !== undefined;
  if (marked) delete facts.env[CAPPED_MARK];
  if (marked || !execve || reasonNotToRestart(facts)) return;
  const emitWarning = process.emitWarning;
  // `process.execve` is experimental, and says so on stderr each time it is called.
  process.emitWarning = () => {};
  try {
    const command = cappedCommandLine(facts.execPath, facts.execArgv, facts.argv);
    execve(facts.execPath, command, { ...facts.env, [CAPPED_MARK]: '1' });
  } catch (error) {
    // A Node that throws on a failed `execve` (newer ones do) leaves a server that goes on uncapped.
    process.stderr.write(
      `agenthost: could not cap V8's young generation (${(error as Error).message}); going on without\n`,
    );
  } finally {
    process.emitWarning = emitWarning;
  }
}
