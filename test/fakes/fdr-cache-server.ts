/**
 * A local FinanceDataReader KRX cache, laid out as the public one is served raw from GitHub
 * (github.com/FinanceData/fdr_krx_data_cache, README "수집 데이터"; files such as
 * `data/listing/krx/2026-03-09.csv` and `data/index/kq11/2026-03-09.csv`): plain GET of a path
 * under `/<owner>/<repo>/<branch>/data/`, answered `text/plain; charset=utf-8` as
 * raw.githubusercontent.com does, 404 with the body `404: Not Found` for a file that is not there.
 *
 * It serves the repository's real KRX files (test/fixtures/krx, a copy of that cache): a day's
 * `listing/YYYY-MM-DD.csv` unchanged at `listing/krx/YYYY-MM-DD.csv`, and the day's row of
 * `index/kospi/YYYY.csv` / `index/kosdaq/YYYY.csv` (with the header) at `index/ks11/…` /
 * `index/kq11/…` — the cache's one-row daily index files. With `anyDate`, a trading day without a
 * fixture is served the last fixture day's files (a probe of "today"). Failures are injected per
 * call (`fail`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { krxFile } from '../helpers/krx-fixtures.js';

/** What the fake answers instead of the file, for one call. */
export type FdrFailure =
  | { kind: 'status'; status: number; body?: string }
  | { kind: 'html' }
  | { kind: 'truncated' }
  | { kind: 'missing' };

/** Which file of a date: the listing or one of the two index files. */
export type FdrFileKind = 'listing' | 'ks11' | 'kq11';

/** A running fake. */
export interface FakeFdr {
  /** The base URL an operator would set (ends with `/data`). */
  url: string;
  /** Paths requested, in order, relative to the base. */
  calls: string[];
  /** Queue failures for the next calls of one kind of file. */
  fail(kind: FdrFileKind, ...failures: FdrFailure[]): void;
  /** Remove every file of `date` from the cache (404 from now on). */
  drop(date: string): void;
  /** Correct one issue's close on one date to that day's low (the cache rewrote the file). */
  correct(date: string, code: string): void;
  close(): Promise<void>;
}

const LISTING_DATES = readdirSync(krxFile('listing')).map((f) => f.slice(0, 10)).sort();

/** The one-row daily index file of `date` from the yearly fixture, or null. */
function indexDay(folder: 'kospi' | 'kosdaq', date: string): string | null {
  let text: string;
  try {
    text = readFileSync(krxFile(`index/${folder}/${date.slice(0, 4)}.csv`), 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  const row = lines.find((l) => l.startsWith(`${date},`));
  return row ? `${lines[0]}\n${row}\n` : null;
}

/** Start the fake on a loopback port. */
export async function startFakeFdr(options: { anyDate?: boolean } = {}): Promise<FakeFdr> {
  const queued = new Map<FdrFileKind, FdrFailure[]>();
  const corrections = new Map<string, Set<string>>();
  const calls: string[] = [];
  const dropped = new Set<string>();
  const prefix = '/FinanceData/fdr_krx_data_cache/master/data/';

  const send = (res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const fileFor = (kind: FdrFileKind, date: string): string | null => {
    if (dropped.has(date)) return null;
    const day = LISTING_DATES.includes(date) ? date : options.anyDate ? LISTING_DATES[LISTING_DATES.length - 1]! : null;
    if (day === null) return null;
    if (kind === 'ks11') return indexDay('kospi', day);
    if (kind === 'kq11') return indexDay('kosdaq', day);
    let text = readFileSync(krxFile(`listing/${day}.csv`), 'utf8');
    const fixed = corrections.get(date);
    if (fixed) {
      // Columns: index, Code, ISU_CD, Name, Market, Dept, Close, ChangeCode, Changes, ChagesRatio, Open, High, Low, …
      text = text.split('\n').map((line) => {
        const f = line.split(',');
        return f.length > 12 && fixed.has(f[1]!) ? [...f.slice(0, 6), f[12]!, ...f.slice(7)].join(',') : line;
      }).join('\n');
    }
    return text;
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method !== 'GET' || !path.startsWith(prefix)) return send(res, 404, '404: Not Found');
    const rel = path.slice(prefix.length);
    calls.push(rel);
    const m = /^(listing\/krx|index\/ks11|index\/kq11)\/(\d{4}-\d{2}-\d{2})\.csv$/.exec(rel);
    if (!m) return send(res, 404, '404: Not Found');
    const kind: FdrFileKind = m[1] === 'listing/krx' ? 'listing' : m[1] === 'index/ks11' ? 'ks11' : 'kq11';
    const failure = queued.get(kind)?.shift();
    if (failure?.kind === 'status') return send(res, failure.status, failure.body ?? `HTTP ${failure.status}`);
    if (failure?.kind === 'html') return send(res, 200, '<!DOCTYPE html><html><body><h1>Unicorn! · GitHub</h1></body></html>', 'text/html; charset=utf-8');
    if (failure?.kind === 'missing') return send(res, 404, '404: Not Found');
    const body = fileFor(kind, m[2]!);
    if (body === null) return send(res, 404, '404: Not Found');
    if (failure?.kind === 'truncated') return send(res, 200, body.slice(0, Math.floor(body.length / 2)));
    send(res, 200, body);
  };

  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix.slice(0, -1)}`,
    calls,
    fail(kind, ...failures) {
      queued.set(kind, [...(queued.get(kind) ?? []), ...failures]);
    },
    drop(date) {
      dropped.add(date);
    },
    correct(date, code) {
      const s = corrections.get(date) ?? new Set<string>();
      s.add(code);
      corrections.set(date, s);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
