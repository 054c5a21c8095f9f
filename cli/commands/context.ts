/** The per-invocation context every command registration receives. */
import type { CliIO } from '../io.js';

/** What `register(program, ctx)` gets: the injected IO and environment, and the exit code to return. */
export interface CliContext {
  io: CliIO;
  env: NodeJS.ProcessEnv;
  /** Set by actions that finish without an error but must not exit 0 (e.g. `daemon status` when down). */
  exitCode: number;
}

/** A fresh context (nothing is shared between runs). */
export function createContext(io: CliIO, env: NodeJS.ProcessEnv): CliContext {
  return { io, env, exitCode: 0 };
}
