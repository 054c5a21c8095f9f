/**
 * The line `stockscreend` prints when it is ready to use: URL, how many stocks and
 * daily bars it serves, and the next command, on stderr (stdout carries the log, possibly JSON).
 * With `--sample` on an empty database it waits for the sample load to finish first.
 */
import type { Daemon } from './daemon.js';

/** The ready line, e.g. "ready at http://127.0.0.1:8000 — 2,702 stocks, 1,352,263 bars; next: …". */
export function readyLine(url: string, stocks: number, bars: number, color: boolean): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const next = stocks > 0 ? 'stockscreen register --email you@example.com' : 'stockscreen load sample (as an admin) or stockscreen load <files>';
  const text = `ready at ${url} — ${n(stocks)} stocks, ${n(bars)} bars; next: ${next}`;
  return color ? `\u001b[1;32m${text}\u001b[0m` : text;
}

/**
 * True while a market-data job (the sample load) is waiting or running, and while the queue
 * cannot be read (a busy or briefly unreachable Redis): "ready" is said only once it is known.
 */
async function loading(daemon: Daemon): Promise<boolean> {
  const jobs = await daemon.context().jobs.market.list(10).catch(() => null);
  if (jobs === null) return true;
  return jobs.some((j) => j.state === 'active' || j.state === 'waiting' || j.state === 'delayed' || j.state === 'prioritized');
}

/**
 * Print the ready line once no market-data job is pending (polled every `pollMs`); resolves
 * when printed or when `signal` aborts.
 */
export async function announceReady(daemon: Daemon, out: NodeJS.WriteStream, signal: AbortSignal, pollMs = 1000): Promise<void> {
  while (!signal.aborted && (await loading(daemon))) {
    await new Promise((r) => setTimeout(r, pollMs).unref());
  }
  if (signal.aborted) return;
  const { store } = daemon.context();
  const [stocks, bars] = await Promise.all([store.stocks.count(), store.prices.countBars()]).catch(() => [0, 0]);
  out.write(readyLine(daemon.url(), stocks, bars, out.isTTY === true && process.env.NO_COLOR === undefined) + '\n');
}
