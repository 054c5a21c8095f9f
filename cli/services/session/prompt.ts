/**
 * Asking the user: prompts only when stdin and stdout are terminals (a script
 * never hangs on a question it cannot see),
 * otherwise the command names the flag to pass; passwords can also come from stdin.
 */
import type { CliIO } from '../../io.js';
import { usageError } from './errors.js';

export type { PromptQuestion, Prompter } from '../../io.js';

/** True when prompting is allowed: both stdin and stdout are terminals. */
export function canPrompt(io: Pick<CliIO, 'stdin' | 'stdout'>): boolean {
  return io.stdin.isTTY === true && io.stdout.isTTY === true;
}

/**
 * Read a password piped on stdin (`--password-stdin`); one trailing newline is dropped.
 * @throws CliError USAGE when nothing was piped
 */
export async function readPasswordFromStdin(io: Pick<CliIO, 'stdin'>): Promise<string> {
  const text = (await io.stdin.readAll()).replace(/\r?\n$/, '');
  if (text === '') throw usageError('--password-stdin given but stdin was empty', 'pipe the password in, e.g. `printf %s "$PW" | stockscreen login --email you@example.com --password-stdin`');
  return text;
}
