import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { applyEnvOptions, envNameFor } from '../../../../cli/commands/env-options.js';
import { globalOptions, intArg } from '../../../../cli/commands/shared.js';
import { CliError } from '../../../../cli/services/session/errors.js';

/** A root with global options and one subcommand, parsed with `argv`, then the env rule applied. */
function parse(argv: string[], env: NodeJS.ProcessEnv): { root: Command; sub: Command } {
  const root = new Command('t').exitOverride().option('--url <url>').option('--json').option('--profile <name>').option('--no-color');
  const sub = root
    .command('start')
    .option('--port <port>', 'port', intArg(0, 65535))
    .option('--password-stdin')
    .option('--timeout <s>', 'seconds', intArg(1, 600), 20)
    .action(() => undefined);
  root.hook('preAction', (_r, action) => applyEnvOptions(action, env));
  root.parse(argv, { from: 'user' });
  return { root, sub };
}

describe('STOCKSCREEN_* environment rule', () => {
  it('derives the variable name from the long flag', () => {
    expect(envNameFor({ long: '--password-stdin', attributeName: () => 'passwordStdin' })).toBe('STOCKSCREEN_PASSWORD_STDIN');
    expect(envNameFor({ long: '--no-color', attributeName: () => 'color' })).toBe('STOCKSCREEN_NO_COLOR');
  });

  it('fills unset flags of the command and its parents, parsing values like the flag would', () => {
    const { sub } = parse(['start'], { STOCKSCREEN_PORT: '9000', STOCKSCREEN_PASSWORD_STDIN: 'true', STOCKSCREEN_URL: 'http://h:1', STOCKSCREEN_PROFILE: 'p', STOCKSCREEN_JSON: '1' });
    expect(sub.opts()).toMatchObject({ port: 9000, passwordStdin: true });
    expect(globalOptions(sub, {})).toEqual({ url: 'http://h:1', json: true, profile: 'p', color: true });
  });

  it('lets a flag on the command line win and overrides defaults', () => {
    const { sub } = parse(['--profile', 'cli', 'start', '--port', '1234'], { STOCKSCREEN_PORT: '9000', STOCKSCREEN_PROFILE: 'env', STOCKSCREEN_TIMEOUT: '5' });
    expect(sub.opts()).toMatchObject({ port: 1234, timeout: 5 });
    expect(globalOptions(sub, {}).profile).toBe('cli');
  });

  it('turns colour off for --no-color, STOCKSCREEN_NO_COLOR=1 and NO_COLOR', () => {
    expect(globalOptions(parse(['--no-color', 'start'], {}).sub, {}).color).toBe(false);
    expect(globalOptions(parse(['start'], { STOCKSCREEN_NO_COLOR: '1' }).sub, {}).color).toBe(false);
    expect(globalOptions(parse(['start'], {}).sub, { NO_COLOR: 'x' }).color).toBe(false);
    expect(globalOptions(parse(['start'], {}).sub, {}).color).toBe(true);
  });

  it('rejects a value the flag would reject, naming the variable (usage error)', () => {
    const bad = (env: NodeJS.ProcessEnv) => {
      try {
        parse(['start'], env);
      } catch (err) {
        return err;
      }
      return undefined;
    };
    expect(bad({ STOCKSCREEN_PORT: '70000' })).toMatchObject({ exitCode: 2, message: expect.stringContaining('STOCKSCREEN_PORT') });
    expect(bad({ STOCKSCREEN_JSON: 'maybe' })).toBeInstanceOf(CliError);
  });
});
