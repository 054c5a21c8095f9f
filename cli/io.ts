/**
 * The CLI's view of the terminal: stdout, stderr and stdin as small interfaces so that
 * tests inject fakes and nothing below `run()` touches `process.stdout` directly.
 */

/** A writable text sink (process.stdout, process.stderr or a test fake). */
export interface CliOutput {
  write(chunk: string): unknown;
  /** True when attached to a terminal. */
  isTTY?: boolean;
  /** Terminal width, when known. */
  columns?: number;
}

/** The CLI's input: a TTY flag and a way to read everything piped in. */
export interface CliInput {
  isTTY?: boolean;
  /** Read all of stdin as UTF-8 text (for `--password-stdin`). */
  readAll(): Promise<string>;
}

/** Everything `run()` reads from or writes to; `prompter` and `signal` are optional seams for tests. */
export interface CliIO {
  stdout: CliOutput;
  stderr: CliOutput;
  stdin: CliInput;
  /** Interactive prompts (default: Ink prompts on the real terminal). */
  prompter?: Prompter;
  /** Aborts long-running commands such as `daemon logs --follow` (default: SIGINT). */
  signal?: AbortSignal;
}

/** Read a whole readable stream as UTF-8 text. */
export async function readStream(stream: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

/** Ignore EPIPE on an output stream (`stockscreen … | head -1` closes the pipe early); other errors still throw. */
function tolerateClosedPipe(stream: NodeJS.WriteStream): void {
  if (stream.listenerCount('error') > 0) return;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/** The real process streams. */
export function processIO(): CliIO {
  tolerateClosedPipe(process.stdout);
  tolerateClosedPipe(process.stderr);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: {
      get isTTY() {
        return process.stdin.isTTY === true;
      },
      readAll: () => readStream(process.stdin),
    },
  };
}

/** One question. */
export interface PromptQuestion {
  label: string;
  /** Hide the typed characters (passwords). */
  secret?: boolean;
}

/** Asks questions on the terminal. */
export interface Prompter {
  /** @throws CliError CANCELLED when the user presses Ctrl-C or Esc */
  ask(question: PromptQuestion): Promise<string>;
  /**
   * Stop the terminal echoing keys from now until the returned function is called, across
   * prompts: a password typed before its prompt appears (or between two prompts) is kept for
   * the prompt, never shown.
   */
  hold?(): () => void;
}
