/**
 * The report: scenario and run verdicts from the rows, and `formatReport`, a plain-text
 * table (metric, spec target, measured value, PASS/FAIL) with numbered notes. Pure.
 */
import type { Report, ReportRow, ScenarioStatus, ScenarioSummary, Target } from './types.js';

/** Status of a scenario from its rows (and the error that ended it, if any). */
export function scenarioStatus(rows: readonly ReportRow[], error?: unknown, aborted = false): ScenarioStatus {
  if (aborted) return 'aborted';
  if (error !== undefined) return 'error';
  if (rows.some((r) => r.pass === false)) return 'fail';
  if (rows.some((r) => r.pass === true)) return 'pass';
  return 'info';
}

/** Verdict of a run: false if anything failed or errored, true if something passed, else null. */
export function runVerdict(scenarios: readonly ScenarioSummary[], rows: readonly ReportRow[]): boolean | null {
  if (scenarios.some((s) => s.status === 'fail' || s.status === 'error') || rows.some((r) => r.pass === false)) return false;
  if (rows.some((r) => r.pass === true)) return true;
  return null;
}

const OP_TEXT: Record<Target['op'], string> = { '<': '<', '<=': '≤', '>': '>', '>=': '≥', '==': '=' };

/** A number for people: thousands separators, fewer decimals as it grows. */
export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  const digits = Number.isInteger(value) ? 0 : abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function withUnit(text: string, unit: string): string {
  return unit === '' ? text : unit === '%' ? `${text}%` : `${text} ${unit}`;
}

/** "< 200 ms", "≥ 10,000", "= 0". */
export function formatTarget(target: Target | null, unit: string): string {
  return target === null ? '' : `${OP_TEXT[target.op]} ${withUnit(formatNumber(target.value), unit)}`;
}

/** Measured value with its unit; an em dash when not measured. */
export function formatMeasured(value: number | null, unit: string): string {
  return value === null ? '—' : withUnit(formatNumber(value), unit);
}

function verdictText(pass: boolean | null | undefined): string {
  return pass === true ? 'PASS' : pass === false ? 'FAIL' : '';
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...(r[c] ?? '')].length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell + ' '.repeat(widths[c]! - [...cell].length)))
      .join('  ')
      .trimEnd(),
  );
}

/** The report as an aligned plain-text table with notes and scenario errors below it. */
export function formatReport(report: Report): string {
  const notes: string[] = [];
  const lines: string[][] = [['SCENARIO', 'METRIC', 'TARGET', 'MEASURED', 'RESULT']];
  for (const row of report.rows) {
    let result = verdictText(row.pass);
    if (row.note) {
      notes.push(row.note);
      result = `${result}${result ? ' ' : ''}[${notes.length}]`;
    }
    lines.push([row.scenario, row.metric, formatTarget(row.target, row.unit), formatMeasured(row.measured, row.unit), result]);
  }
  const verdict = report.pass === true ? 'PASS' : report.pass === false ? 'FAIL' : 'NO TARGETS JUDGED';
  const out = [`Load test of ${report.url} — ${report.started_at}${report.aborted ? ' (aborted)' : ''} — ${verdict}`, ''];
  out.push(...table(lines));
  if (notes.length > 0) out.push('', ...notes.map((n, i) => `[${i + 1}] ${n}`));
  if (report.notes.length > 0) out.push('', ...report.notes.map((n) => `Note: ${n}`));
  const troubled = report.scenarios.filter((s) => s.status === 'error' || s.status === 'skipped' || s.status === 'aborted');
  if (troubled.length > 0) {
    out.push('');
    for (const s of troubled) out.push(`${s.scenario}: ${s.status}${s.message ? ` — ${s.message}` : ''}`);
  }
  return out.join('\n') + '\n';
}
