/**
 * `stockscreen` entry point: run(argv, io, env) parses the command line, runs the command
 * and returns the exit code (0 ok, 1 error, 2 cancelled/usage, 4 authentication required).
 * Nothing below it calls process.exit; errors are printed here, once.
 */
import { CommanderError } from 'commander';
import { createContext } from './commands/context.js';
import { processIO, type CliIO } from './io.js';
import { createProgram } from './program.js';
import { EXIT, exitCodeOf, formatError, jsonError } from './services/session/errors.js';

export type { CliIO } from './io.js';

/**
 * Run the CLI with `argv` (arguments only, without node and the script) and return the exit code.
 * Never throws: every failure is printed to `io.stderr`.
 */
export async function run(argv: string[], io: CliIO = processIO(), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const ctx = createContext(io, env);
  let program: ReturnType<typeof createProgram> | undefined;
  try {
    program = createProgram(ctx);
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    // Commander already printed its message (usage errors) or the help/version text.
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    // With --json, scripts read the failure from stdout too; people read stderr.
    if (program?.opts<{ json?: boolean }>().json === true || /^(1|true|yes|on)$/i.test(env.STOCKSCREEN_JSON ?? '')) io.stdout.write(`${JSON.stringify(jsonError(err))}\n`);
    io.stderr.write(formatError(err));
    if (env.STOCKSCREEN_DEBUG && err instanceof Error && err.stack) io.stderr.write(err.stack + '\n');
    return exitCodeOf(err);
  }
}
