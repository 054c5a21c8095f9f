/** The commander program: global options, output wiring, the env rule, and every command. */
import { Command } from 'commander';
import { registerCommands } from './commands/index.js';
import type { CliContext } from './commands/context.js';
import { applyEnvOptions, ENV_RULE } from './commands/env-options.js';
import { examples } from './commands/shared.js';
import { packageVersion } from './services/daemon/package-root.js';

const ROOT_EXAMPLES = [
  'stockscreen daemon start --sample',
  'stockscreen register && stockscreen login',
  'stockscreen whoami --json',
  'STOCKSCREEN_URL=http://10.0.0.5:8000 stockscreen --profile prod whoami',
];

/** Exit codes as the root help lists them. */
const EXIT_CODES_HELP = `Exit codes:
  0 ok, 1 error, 2 cancelled or usage error, 4 authentication required`;

/** Apply output and error handling to a command and everything under it (commander copies settings only at creation). */
function configureTree(cmd: Command, ctx: CliContext): void {
  cmd.exitOverride().configureOutput({
    writeOut: (text) => ctx.io.stdout.write(text),
    writeErr: (text) => ctx.io.stderr.write(text),
    getOutHelpWidth: () => ctx.io.stdout.columns ?? 80,
    getErrHelpWidth: () => ctx.io.stderr.columns ?? 80,
  });
  for (const sub of cmd.commands) configureTree(sub, ctx);
}

/** Build the program for one run (nothing is shared between runs). */
export function createProgram(ctx: CliContext): Command {
  const program = new Command('stockscreen')
    .description('Command-line client of stockscreend: accounts, the local daemon and administration')
    .version(packageVersion(), '-V, --version')
    .option('--url <url>', "daemon URL (default: the profile's saved URL, a daemon started here, else http://127.0.0.1:8000)")
    .option('--json', 'print exactly the JSON the API returned')
    .option('--profile <name>', 'credentials profile (default "default")')
    .option('--no-color', 'no colour in output (NO_COLOR is honoured too)')
    .showSuggestionAfterError()
    .addHelpText('after', `${examples(ROOT_EXAMPLES)}\n${ENV_RULE}\n\n${EXIT_CODES_HELP}\n`)
    .hook('preAction', (_root, actionCommand) => applyEnvOptions(actionCommand, ctx.env));
  registerCommands(program, ctx);
  configureTree(program, ctx);
  return program;
}
