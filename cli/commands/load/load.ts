/** `stockscreen load <paths...>`: check files and folders here (every row), then have the daemon's workers load them. */
import { Option, type Command } from 'commander';
import type { JobRequestInput, JobUploadSpec } from '../../../daemon/contract/jobs.js';
import { LOADER_FORMATS } from '../../../loaders/types.js';
import { CliError, usageError } from '../../services/session/errors.js';
import { interruptSignal } from '../../services/session/interrupt.js';
import { runLoadJob } from '../../services/load/load-job.js';
import { checkLoadFlags, dryRun, jobPaths, planPaths, unrecognisedFiles, validatePlan, type LoadFlags, type PlannedPath } from '../../services/load/load-plan.js';
import { dryRunDiagnostics, dryRunSummary, dryRunTable, rejectionLines, validationSummary } from '../../services/load/load-rows.js';
import { printTable } from '../../services/output/print-table.js';
import type { Session } from '../../services/session/session.js';
import { uploadPlan } from '../../services/load/upload-files.js';
import { refuseMixBeforeUpload, withMixingHint } from '../../services/load/market-state.js';
import type { CliContext } from '../context.js';
import { retryForOption } from '../flag-parsers.js';
import { action, examples } from '../shared.js';

interface LoadOptions extends LoadFlags {
  dryRun?: boolean;
  serverPath?: boolean;
  replaceSample?: boolean;
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

/** Paths on the daemon's machine, sent as given (it checks them against its import_dirs). */
function serverPaths(paths: readonly string[], flags: LoadFlags): Extract<JobRequestInput, { type: 'load-files' }>['paths'] {
  checkLoadFlags(flags);
  return jobPaths(paths.map((path) => ({ path, kind: 'file' as const, files: [] })), flags);
}

/**
 * Plan and check the files here, then stream them to the daemon; the job's inputs, or the
 * exit code of a dry run.
 */
async function uploadInputs(session: Session, paths: readonly string[], flags: LoadFlags, opts: LoadOptions): Promise<JobUploadSpec[] | number> {
  const plan = await planPaths(paths, process.cwd(), flags);
  if (opts.dryRun) return runDryRun(session, plan, flags);
  // Ask the daemon first: a load it would refuse uploads nothing.
  await refuseMixBeforeUpload(session, opts.replaceSample === true);
  checkRecognised(session, plan);
  if (opts.validate) await validateHere(session, plan, flags);
  const started = Date.now();
  let bytes = 0;
  const specs = await uploadPlan(session, plan, flags, (done, total, info) => {
    bytes += info.size;
    session.out.info(`uploaded ${done}/${total} ${info.name} (${formatBytes(info.size)}, sha256 ${info.sha256.slice(0, 12)}…)`);
  });
  const seconds = Math.max(0.001, (Date.now() - started) / 1000);
  session.out.info(`uploaded ${specs.length} file${specs.length === 1 ? '' : 's'}, ${formatBytes(bytes)} at ${formatBytes(bytes / seconds)}/s`);
  return specs;
}

function formatBytes(n: number): string {
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${Math.round(n)} B`;
}

/** Add `load` to `parent` (its `sample` subcommand is registered separately under the `load` group). */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('load')
    .description('Load market data files or folders: formats are detected (or forced with --format), folders are planned, and every row is validated here first: each rejected row is printed as file:line: reason, and nothing is enqueued if a file has more than 5% bad rows; then the files are streamed to the daemon and loaded all or nothing (admin only)')
    .argument('<paths...>', 'files or folders; relative paths are resolved against the current directory')
    .addOption(new Option('--format <format>', 'force the format of the file').choices(LOADER_FORMATS))
    .option('--date <YYYY-MM-DD>', 'trade date of a single-day quote file (default: from the file name)')
    .option('--code <code>', 'stock code of a per-stock history file (default: from the file name)')
    .option('--dry-run', 'parse every file here and report rows ok/rejected/skipped with each reason; enqueue nothing (exit 1 if a file would be refused; --json: {dry_run, files})')
    .option('--wait', 'follow the job with a progress bar until it finishes (default on a terminal)')
    .option('--no-wait', 'return as soon as the job is enqueued (default when piped)')
    .option('--no-compute', 'do not recompute indicators after loading')
    .option('--no-validate', 'enqueue without reading every row here first (very large inputs; the worker applies the same rules)')
    .option('--server-path', 'the paths name files on the daemon\'s machine, inside its import_dirs: nothing is uploaded or checked here')
    .option('--replace-sample', 'the database holds the generated sample market: remove it, in the same transaction as this load')
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
        'stockscreen load ./krx --replace-sample              # real data over the sample market',
        'stockscreen load /srv/krx --server-path              # a folder inside the daemon\'s import_dirs',
      ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const [paths] = cmd.processedArgs as [string[]];
        const opts = cmd.opts<LoadOptions>();
        const flags: LoadFlags = { format: opts.format, date: opts.date, code: opts.code };
        const inputs = opts.serverPath ? serverPaths(paths, flags) : await uploadInputs(session, paths, flags, opts);
        if (typeof inputs === 'number') return inputs;
        const interrupt = interruptSignal(session.io);
        try {
          const request = { type: 'load-files' as const, paths: inputs, compute: opts.compute, replace_sample: opts.replaceSample === true };
          return await runLoadJob(session, request, { wait: opts.wait, signal: interrupt.signal, retryForMs: opts.retryFor });
        } catch (err) {
          throw withMixingHint(err, `stockscreen load ${paths.join(' ')}`);
        } finally {
          interrupt.release();
        }
      }),
    );
}
