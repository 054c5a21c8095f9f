/**
 * A fake terminal for `run(argv, io, env)`: captured stdout/stderr, a stdin with fixed
 * text, TTY flags, and a scripted prompter that records what it was asked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from '../../../cli/io.js';
import { run } from '../../../cli/main.js';
import { CliError, LOCAL_CODES } from '../../../cli/services/session/errors.js';
import type { PromptQuestion } from '../../../cli/services/session/prompt.js';

/** Options of fakeIO. */
export interface FakeIOOptions {
  /** stdout and stdin are terminals (prompts allowed, Ink views). */
  tty?: boolean;
  columns?: number;
  stdin?: string;
  /** Answers for prompts, in order; `null` cancels (like Ctrl-C). */
  answers?: (string | null)[];
  signal?: AbortSignal;
}

/** A fake IO plus what it captured. */
export interface FakeIO extends CliIO {
  out(): string;
  err(): string;
  asked: PromptQuestion[];
}

/** Build a fake IO. */
export function fakeIO(options: FakeIOOptions = {}): FakeIO {
  let stdout = '';
  let stderr = '';
  const answers = [...(options.answers ?? [])];
  const asked: PromptQuestion[] = [];
  return {
    stdout: { write: (s: string) => (stdout += s), isTTY: options.tty ?? false, columns: options.columns ?? 100 },
    stderr: { write: (s: string) => (stderr += s), isTTY: options.tty ?? false },
    stdin: { isTTY: options.tty ?? false, readAll: async () => options.stdin ?? '' },
    prompter: {
      async ask(question) {
        asked.push(question);
        const answer = answers.shift();
        if (answer === undefined) throw new Error(`unexpected prompt: ${question.label}`);
        if (answer === null) throw new CliError({ code: LOCAL_CODES.CANCELLED, message: 'cancelled' });
        return answer;
      },
    },
    signal: options.signal,
    out: () => stdout,
    err: () => stderr,
    asked,
  };
}

/** Temp XDG directories and an environment that points at them (nothing from the real environment leaks in). */
export interface TempEnv {
  root: string;
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

/** Create temp XDG dirs; `extra` adds variables. */
export async function tempEnv(extra: NodeJS.ProcessEnv = {}): Promise<TempEnv> {
  const root = await mkdtemp(join(tmpdir(), 'stockscreen-cli-'));
  return {
    root,
    env: {
      HOME: root,
      XDG_CONFIG_HOME: join(root, 'config'),
      XDG_STATE_HOME: join(root, 'state'),
      XDG_DATA_HOME: join(root, 'data'),
      ...extra,
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Run the CLI against the daemon at `url` in the temp environment `e`: its exit code and its terminal. */
export async function runCliAt(url: string, e: TempEnv, argv: string[], stdin = ''): Promise<{ code: number; io: FakeIO }> {
  const io = fakeIO({ stdin });
  return { code: await run(['--url', url, ...argv], io, e.env), io };
}
