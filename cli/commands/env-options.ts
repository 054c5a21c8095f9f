/**
 * The one rule for environment variables: every flag `--some-flag` of every command can
 * be given as `STOCKSCREEN_SOME_FLAG` (flag > environment > default). Applied generically
 * before each action from the injected environment, so commands get it for free.
 */
import type { Command, Option } from 'commander';
import { usageError } from '../services/session/errors.js';

/** The rule as shown at the end of the root help. */
export const ENV_RULE = `Environment:
  Every flag has an environment equivalent: --some-flag → STOCKSCREEN_SOME_FLAG
  (e.g. STOCKSCREEN_URL, STOCKSCREEN_PROFILE, STOCKSCREEN_JSON=1, STOCKSCREEN_PASSWORD_STDIN=1).
  A flag on the command line wins over the environment. NO_COLOR is honoured.
  Files live under $XDG_CONFIG_HOME/stockscreen (credentials, mode 0600),
  $XDG_STATE_HOME/stockscreen (daemon pid and log) and $XDG_DATA_HOME/stockscreen (data).`;

const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off)$/i;

/** The environment variable of an option: `--no-color` → STOCKSCREEN_NO_COLOR. */
export function envNameFor(option: Pick<Option, 'long' | 'attributeName'>): string {
  const flag = option.long?.replace(/^--/, '') ?? option.attributeName();
  return `STOCKSCREEN_${flag.replace(/-/g, '_').toUpperCase()}`;
}

/**
 * Parse an environment value for `option`.
 * @throws CliError USAGE for a value the flag would not accept
 */
function parseEnvValue(option: Option, name: string, raw: string, previous: unknown): unknown {
  // Commander's isBoolean() is false for negated flags (--no-color), which take no value either.
  if (option.isBoolean() || option.negate) {
    if (TRUE.test(raw)) return !option.negate;
    if (FALSE.test(raw)) return option.negate;
    throw usageError(`${name}="${raw}" is not a boolean`, `use ${name}=1 or ${name}=0`);
  }
  if (option.argChoices && !option.argChoices.includes(raw)) {
    throw usageError(`${name}="${raw}" is not one of ${option.argChoices.join(', ')}`);
  }
  if (!option.parseArg) return raw;
  try {
    return option.parseArg(raw, previous);
  } catch (err) {
    throw usageError(`${name}: ${(err as Error).message}`);
  }
}

/**
 * Fill options of `command` and its ancestors that were not given on the command line
 * from `STOCKSCREEN_*` variables in `env`.
 * @throws CliError USAGE for an invalid value
 */
export function applyEnvOptions(command: Command, env: NodeJS.ProcessEnv): void {
  for (let cmd: Command | null = command; cmd; cmd = cmd.parent) {
    for (const option of cmd.options) {
      const key = option.attributeName();
      const source = cmd.getOptionValueSource(key);
      if (source === 'cli' || source === 'env') continue;
      const name = envNameFor(option);
      const raw = env[name];
      if (raw === undefined || raw === '') continue;
      cmd.setOptionValueWithSource(key, parseEnvValue(option, name, raw, cmd.getOptionValue(key)), 'env');
    }
  }
}
