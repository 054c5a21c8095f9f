/** Helpers for command registrations: examples in help, global options, the action wrapper, flag parsers. */
import { InvalidArgumentError, type Command } from 'commander';
import { outputMode } from '../services/output/output.js';
import type { Views } from '../services/output/views.js';
import type { Prompter } from '../services/session/prompt.js';
import { createSession, type GlobalOptions, type Session } from '../services/session/session.js';
import type { CliContext } from './context.js';

/** The "Examples:" section every command's help ends with. */
export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') ? `  ${line}` : `  $ ${line}`)).join('\n')}\n`;
}

/** The global options of the command being run (after the STOCKSCREEN_* rule was applied). */
export function globalOptions(cmd: Command, env: NodeJS.ProcessEnv): GlobalOptions {
  const opts = cmd.optsWithGlobals<{ url?: string; json?: boolean; profile?: string; color?: boolean }>();
  return {
    url: opts.url,
    json: opts.json === true,
    profile: opts.profile ?? 'default',
    // NO_COLOR: any non-empty value disables colour (https://no-color.org).
    color: opts.color !== false && !env.NO_COLOR,
  };
}

/** A command's logic: gets the session and the commander command (for its options and arguments). */
export type ActionFn = (session: Session, cmd: Command) => Promise<number | void>;

// Ink (with its layout engine) is slow to load, so it is imported only when something is drawn.
const loadUi = () => import('../ui/render.js');

const notOnTerminal = (): never => {
  throw new Error('renderers are only used on a terminal');
};
const UNUSED_RENDERERS: Views = {
  table: notOnTerminal,
  record: notOnTerminal,
  marketTable: notOnTerminal,
  jobProgress: notOnTerminal,
  backtestProgress: notOnTerminal,
  loadtestProgress: notOnTerminal,
  liveScreen: notOnTerminal,
};

const lazyInkPrompter: Prompter = {
  ask: async (question) => (await loadUi()).createInkPrompter().ask(question),
};

/** Wrap `fn` as a commander action: builds the session, records a returned exit code. */
export function action(ctx: CliContext, fn: ActionFn): (...params: unknown[]) => Promise<void> {
  return async (...params) => {
    const cmd = params.at(-1) as Command;
    const globals = globalOptions(cmd, ctx.env);
    const tty = outputMode(globals.json, ctx.io.stdout) === 'tty';
    const session = await createSession(ctx.io, ctx.env, globals, {
      renderers: tty ? (await loadUi()).inkRenderers : UNUSED_RENDERERS,
      prompter: () => lazyInkPrompter,
    });
    const code = await fn(session, cmd);
    if (typeof code === 'number') ctx.exitCode = code;
  };
}

/** A commander parser for an integer flag within [min, max]. */
export function intArg(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    }
    return n;
  };
}
