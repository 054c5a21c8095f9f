/** The screening flags shared by `stockscreen screen` and `stockscreen presets save`. */
import type { Command } from 'commander';
import type { ScreenFlags } from '../../services/screening/screen-flags.js';
import { intArg } from '../shared.js';

/** Commander parser for a repeatable flag: every occurrence is kept, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Add the screening flags to `cmd` (`withPaging`: also --page, which a saved preset does not keep). */
export function addScreenOptions(cmd: Command, withPaging = true): Command {
  cmd
    .option('--market <market>', 'KOSPI, KOSDAQ or ALL')
    .option('--where <expression>', "an expression over indicators, e.g. 'per < 10 and roe > 15'")
    .option('--filter <field=min..max>', 'a range, either side optional: pbr=..1.5, roe=15.., market_cap=1조.. (repeatable)', collect)
    .option('--sort <field[:asc|desc]>', 'sort keys, e.g. roe:desc,per:asc (repeatable; default market_cap:desc)', collect)
    .option('--limit <n>', 'rows per page, at most 500 (default 50)', intArg(1, 500))
    .option('--fields <a,b>', 'extra columns, e.g. per,pbr,rsi_14 (repeatable)', collect)
    .option('--exclude <flags>', 'leave out administrative, spac, preferred and/or halted issues (comma-separated)', collect)
    .option('--sector <name>', 'only this sector (repeatable)', collect)
    .option('--column <name=expression>', "a formula column usable in --where, --filter, --sort and the output, e.g. ey='1/per*100' (repeatable, in order; at most 20)", collect)
    .option('--score <[-]field=weight,...>', 'a score column 0–100: weighted percentile ranks, e.g. roe=0.4,-per=0.3 (- ranks ascending; a null factor gives a null score)', collect)
    .option('--score-by <group>', 'rank the score factors within each sector, industry or market');
  if (withPaging) cmd.option('--page <n>', 'page number, from 1', intArg(1, 1_000_000));
  return cmd;
}

/** The screening flags of a parsed command. */
export function screenFlags(cmd: Command): ScreenFlags {
  const o = cmd.opts<ScreenFlags>();
  return {
    market: o.market, where: o.where, filter: o.filter, sort: o.sort, limit: o.limit, page: o.page, fields: o.fields, exclude: o.exclude, sector: o.sector,
    column: o.column, score: o.score, scoreBy: o.scoreBy,
  };
}
