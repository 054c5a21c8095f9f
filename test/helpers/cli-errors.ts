/** The CliError a CLI helper throws, for tests of its message and code. */
import { expect } from 'vitest';
import { CliError } from '../../cli/services/session/errors.js';

/** The CliError `fn` throws (fails the test when it does not throw one). */
export function usageOf(fn: () => unknown): CliError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    return err as CliError;
  }
  throw new Error('expected a CliError');
}
