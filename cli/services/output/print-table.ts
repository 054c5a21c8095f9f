/**
 * Printing of list results for the market commands: like Output.table, but piped output
 * starts with a header row (these lists have many, and for screens varying, columns
 * that scripts select by name), and market tables on a TTY use the shared market view
 * (numbers right-aligned; changes coloured by the Korean convention, red up and blue down).
 */
import type { MarketCell, MarketTableData } from './market-format.js';
import { toCell, tsvLine, type TableData } from './output.js';
import type { Session } from '../session/session.js';

/** Print `data`: the API body with --json, a table on a TTY, a header row plus TSV rows when piped. */
export function printTable(session: Session, apiBody: unknown, data: TableData): void {
  if (session.out.mode !== 'plain') return session.out.table(apiBody, data);
  const lines = [tsvLine(data.headers), ...data.rows.map(tsvLine)];
  session.io.stdout.write(lines.join('\n') + '\n');
}

/**
 * A table of market cells from table data whose toned cells are changes: tone good is a
 * rise, bad a fall, muted a missing value. `right` marks the numeric columns.
 */
export function toMarketTable(data: TableData, right: readonly boolean[]): MarketTableData {
  return {
    headers: data.headers,
    right: [...right],
    rows: data.rows.map((row) =>
      row.map((value): MarketCell => {
        const cell = toCell(value);
        if (cell.tone === 'good') return { text: cell.text, move: 'up' };
        if (cell.tone === 'bad') return { text: cell.text, move: 'down' };
        return cell.tone === 'muted' ? { text: cell.text, muted: true } : { text: cell.text };
      }),
    ),
  };
}

/** Like printTable, but a TTY gets the market table view (see toMarketTable). */
export async function printMarketTable(session: Session, apiBody: unknown, data: TableData, right: readonly boolean[]): Promise<void> {
  if (session.out.mode !== 'tty') return printTable(session, apiBody, data);
  const text = session.views.marketTable(toMarketTable(data, right), { color: session.out.color, columns: session.io.stdout.columns || 100 });
  session.io.stdout.write(text.endsWith('\n') ? text : text + '\n');
  if (data.rows.length === 0) session.out.info('(no results)');
}

/** The paging note for a TTY ("page 1 of 3 (120 stocks)"), nothing otherwise. */
export function pageNote(session: Session, meta: { total?: number; page?: number; total_pages?: number } | undefined, noun: string): void {
  if (session.out.mode !== 'tty' || meta?.total === undefined) return;
  session.out.info(`page ${meta.page ?? 1} of ${Math.max(1, meta.total_pages ?? 1)} (${meta.total} ${noun})`);
}
