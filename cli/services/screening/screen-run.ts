/**
 * The flow of `stockscreen screen` and `presets run`: flags → a screen target (checked
 * locally before any request), then the answer printed: the API body with --json, the
 * server's CSV with --csv, a formatted table on a TTY, a header row plus TSV when piped;
 * the match count and query time go to stderr.
 */
import type { ScreenBody } from '../../../daemon/contract/screening.js';
import { usageError } from '../session/errors.js';
import { withQuoteHint } from './expression-hints.js';
import { getPreset } from './presets.js';
import { printMarketTable } from '../output/print-table.js';
import { applyOverrides, buildScreenBody, hasQueryFlags, overridesFrom, type ScreenFlags } from './screen-flags.js';
import { checkTemplateId, fieldUnits, runScreen, screenCsv, type ScreenTarget } from './screen.js';
import { screenRight, screenSummary, explanationLines, screenTable } from './screen-rows.js';
import type { Session } from '../session/session.js';

/** Screening flags plus where the query comes from. */
export interface ScreenCommandFlags extends ScreenFlags {
  preset?: string;
  template?: string;
  csv?: boolean;
}

const OVERRIDE_HINT = 'with --preset or --template only --market, --sort, --limit, --page and --fields apply; save a new preset for other filters';

/**
 * The target `flags` describe. Every flag is checked before the first request.
 * @throws CliError USAGE for malformed or conflicting flags; NOT_FOUND for an unknown preset
 */
export async function screenTarget(session: Session, flags: ScreenCommandFlags): Promise<ScreenTarget> {
  if (flags.preset !== undefined && flags.template !== undefined) throw usageError('give --preset or --template, not both');
  if (flags.preset === undefined && flags.template === undefined) return { kind: 'screen', body: buildScreenBody(flags) };
  if (hasQueryFlags(flags)) throw usageError('--where, --filter, --exclude, --sector, --column and --score cannot change a preset or template', OVERRIDE_HINT);
  const overrides = overridesFrom(flags);
  if (flags.template !== undefined) return { kind: 'template', id: checkTemplateId(flags.template), body: { ...overrides } };
  const preset = (await getPreset(session, flags.preset!)).data;
  // The run endpoint takes no overrides and answers JSON only: otherwise run the saved query itself.
  if (Object.keys(overrides).length === 0 && !flags.csv) return { kind: 'preset', id: preset.id };
  return { kind: 'screen', body: applyOverrides(preset.query, overrides) };
}

/**
 * Run `target` and print the answer.
 * @throws CliError USAGE for --csv with --json; the API's errors
 */
export async function printScreen(session: Session, target: ScreenTarget, csv = false): Promise<void> {
  try {
    await printScreenOnce(session, target, csv);
  } catch (err) {
    throw withQuoteHint(err, target.body?.expression as string | undefined);
  }
}

async function printScreenOnce(session: Session, target: ScreenTarget, csv: boolean): Promise<void> {
  if (csv) {
    if (session.out.mode === 'json') throw usageError('--csv and --json exclude each other');
    const { total } = await screenCsv(session, target, session.io.stdout);
    session.out.info(total === null ? 'CSV written' : `${total} match${total === 1 ? '' : 'es'} (CSV)`);
    return;
  }
  const res = await runScreen(session, target);
  const human = session.out.mode === 'tty';
  // Sequential on purpose: two parallel calls with an expired token would both try to renew it.
  const units = human ? await fieldUnits(session) : undefined;
  const table = screenTable(res.data, human, units);
  await printMarketTable(session, res.body, table, screenRight(table.headers));
  const body = res.body as ScreenBody;
  session.out.info(screenSummary(body));
  for (const line of explanationLines(body.meta.explain)) session.out.info(line);
  const asOf = (body as { meta?: { as_of?: string } }).meta?.as_of;
  if (asOf) session.out.info(`as of ${asOf} (data known at that day's close)`);
  if (body.message) session.out.info(body.message);
}
