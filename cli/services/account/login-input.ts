/**
 * Getting an email and password for login/register: prompts on a terminal, otherwise
 * `--email` plus `--password-stdin`, and a usage error that names those flags.
 */
import { usageError } from '../session/errors.js';
import { canPrompt, readPasswordFromStdin } from '../session/prompt.js';
import type { Session } from '../session/session.js';

/** What the flags gave. */
export interface LoginFlags {
  email?: string;
  passwordStdin?: boolean;
}

/** Options of collectLogin. */
export interface CollectOptions {
  /** Command name for messages. */
  command: 'login' | 'register';
  /** Ask for the password twice (register). */
  confirm?: boolean;
}

/**
 * Email and password from flags, stdin or prompts.
 * @throws CliError USAGE when not on a terminal and the flags are missing, or the answers are empty or differ; CANCELLED on Ctrl-C
 */
export async function collectLogin(session: Session, flags: LoginFlags, options: CollectOptions): Promise<{ email: string; password: string }> {
  const example = `printf %s "$PASSWORD" | stockscreen ${options.command} --email you@example.com --password-stdin`;
  if (flags.passwordStdin) {
    if (!flags.email) throw usageError('--password-stdin needs --email', `e.g. ${example}`);
    await ensureReachable(session);
    return { email: flags.email, password: await readPasswordFromStdin(session.io) };
  }
  if (!canPrompt(session.io)) {
    throw usageError(`not a terminal, so ${options.command} cannot prompt: pass --email and --password-stdin`, `e.g. ${example}`);
  }
  const prompter = session.prompter();
  // No echo from here on: what is typed ahead of a prompt waits for it unseen.
  const release = prompter.hold?.() ?? (() => undefined);
  try {
    // Find out the daemon is down before anyone types a password for it.
    await ensureReachable(session);
    const email = (flags.email ?? (await prompter.ask({ label: 'Email' }))).trim();
    if (!email) throw usageError('an email is required');
    const password = await prompter.ask({ label: 'Password', secret: true });
    if (!password) throw usageError('a password is required');
    if (options.confirm && (await prompter.ask({ label: 'Repeat password', secret: true })) !== password) {
      throw usageError('the passwords do not match');
    }
    return { email, password };
  } finally {
    release();
  }
}

/**
 * GET /health, to learn that the daemon is unreachable before asking for anything.
 * @throws CliError (the URL tried and how to start the daemon) when nothing answers
 */
export async function ensureReachable(session: Session): Promise<void> {
  await session.api.request({ path: '/health', auth: false, allowError: true });
}
