/** `stockscreen load <paths...>`: check files and folders here (every row), then have the daemon's workers load them. */
import { Option, type Command } from 'commander';
import { LOADER_FORMATS } from '../../../loaders/types.js';
import { CliError, usageError } from '../../services/errors.js';
import { interruptSignal } from '../../services/interrupt.js';
import { runLoadJob } from '../../services/load-job.js';
import { dryRun, jobPaths, planPaths, unrecognisedFiles, validatePlan, type LoadFlags, type PlannedPath } from '../../services/load-plan.js';
import { dryRunDiagnostics, dryRunSummary, dryRunTable, rejectionLines, validationSummary } from '../../services/load-rows.js';
import { printTable } from '../../services/print-table.js';
import type { Session } from '../../services/session.js';
import type { CliContext } from '../context.js';
import { retryForOption } from '../flag-parsers.js';
import { action, examples } from '../shared.js';

interface LoadOptions extends LoadFlags {
  dryRun?: boolean;
  wait?: boolean;
  compute: boolean;
  validate: boolean;
  retryFor: number;
}

/** Refuse named files no loader recognises; warn about such files inside folders (the worker skips them). */
function checkRecognised(session: Session, plan: PlannedPath[]): void {
  const named = plan.filter((p) => p.kind === 'file' && p.files[0]?.format === null);
  if (named.length) {
    throw usageError(`${named.map((p) => p.path).join(', ')}: unrecognised file format`, `pass --format (one of ${LOADER_FORMATS.join(', ')})`);
  }
  for (const f of unrecognisedFiles(plan)) session.out.info(`warning: ${f.path}: not recognised, will be skipped`);
  const loadable = plan.reduce((n, p) => n + p.files.filter((f) => f.format !== null).length, 0);
  if (loadable === 0) throw usageError('no data files to load', 'folders are searched for .csv, .json, .ndjson, .jsonl and .txt files');
}

async function runDryRun(session: Session, plan: PlannedPath[], flags: LoadFlags): Promise<number> {
  const files = await dryRun(plan, flags);
  if (session.out.mode === 'json') session.out.json({ dry_run: true, files });
  else printTable(session, null, dryRunTable(files));
  for (const line of dryRunDiagnostics(files)) session.out.info(line);
  session.out.info(dryRunSummary(files));
  return files.some((f) => f.refused) ? 1 : 0;
}

/**
 * Validate every row of every file here, as the worker will. Prints each rejected row as
 * `file:line: reason` on stderr.
 * @throws CliError VALIDATION_FAILED (exit 1) when a file would be refused whole; nothing is enqueued then
 */
async function validateHere(session: Session, plan: PlannedPath[], flags: LoadFlags): Promise<void> {
  const files = await validatePlan(plan, flags);
  for (const line of rejectionLines(files)) session.out.info(line);
  const refused = files.filter((f) => f.refused);
  if (refused.length === 0) {
    session.out.info(validationSummary(files));
    return;
  }
  throw new CliError({
    code: 'VALIDATION_FAILED',
    message: `${refused.length} of ${files.length} file${files.length === 1 ? '' : 's'} would be rejected by the worker; nothing was enqueued`,
    context: refused.map((f) => `${f.file}: ${f.refused}`),
    hint: 'fix the rows listed above (file:line: reason), or load the other files without these; `--dry-run` shows the full report',
  });
}

/** Add `load` to `parent` (its `sample` subcommand is registered separately under the `load` group). */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('load')
    .description('Load market data files or folders: formats are detected (or forced with --format), folders are planned, and every row is validated here first: each rejected row is printed as file:line: reason, and nothing is enqueued if a file has more than 5% bad rows (admin only)')
    .argument('<paths...>', 'files or folders; relative paths are resolved against the current directory')
    .addOption(new Option('--format <format>', 'force the format of the file').choices(LOADER_FORMATS))
    .option('--date <YYYY-MM-DD>', 'trade date of a single-day quote file (default: from the file name)')
    .option('--code <code>', 'stock code of a per-stock history file (default: from the file name)')
    .option('--dry-run', 'parse every file here and report rows ok/rejected/skipped with each reason; enqueue nothing (exit 1 if a file would be refused; --json: {dry_run, files})')
    .option('--wait', 'follow the job with a progress bar until it finishes (default on a terminal)')
    .option('--no-wait', 'return as soon as the job is enqueued (default when piped)')
    .option('--no-compute', 'do not recompute indicators after loading')
    .option('--no-validate', 'enqueue without reading every row here first (very large inputs; the worker applies the same rules)')
    .addOption(retryForOption())
    .addHelpText(
      'after',
      examples([
        'stockscreen load ./krx/listing/2026-03-20.csv',
        'stockscreen load ./krx --dry-run',
        'stockscreen load ./market.ndjson --no-validate      # a multi-GB dump: let the worker check it',
        'stockscreen load quotes.csv --format krx-quotes --date 2026-03-20 --no-wait',
        'stockscreen load 005930.csv --code 005930 --json',
        'stockscreen load sample --stocks 200 --days 300',
      ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const [paths] = cmd.processedArgs as [string[]];
        const opts = cmd.opts<LoadOptions>();
        const flags: LoadFlags = { format: opts.format, date: opts.date, code: opts.code };
        const plan = await planPaths(paths, process.cwd(), flags);
        if (opts.dryRun) return runDryRun(session, plan, flags);
        checkRecognised(session, plan);
        if (opts.validate) await validateHere(session, plan, flags);
        const interrupt = interruptSignal(session.io);
        try {
          return await runLoadJob(session, { type: 'load-files', paths: jobPaths(plan, flags), compute: opts.compute }, { wait: opts.wait, signal: interrupt.signal, retryForMs: opts.retryFor });
        } finally {
          interrupt.release();
        }
      }),
    );
}
