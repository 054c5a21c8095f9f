/**
 * The abuse bench's measuring client, in a process of its own (forked by bench-abuse.ts), so
 * what it measures is the daemon and the machine, never the attackers' event loop: the attack
 * clients parse megabytes of as-of answers and would delay the probes' own timers and sockets.
 *
 * The parent sends one `ProbeStart`; the probe then measures, until `until`:
 * - `/health` of the daemon every 100 ms;
 * - `/health` of a bare `node:http` server (baseline-servers.ts, in another process) on the same
 *   cadence: the floor this shared machine gives at that moment, measured in the same seconds;
 * - another user's simple screen every 250 ms (a new query each time: never a cache hit);
 * and answers one `ProbeResult`, then exits.
 */
import { appendFileSync } from 'node:fs';

/** What the parent asks for. */
export interface ProbeStart {
  daemonUrl: string;
  bareUrl: string;
  /** The other (rate-limit exempted) user's access token. */
  token: string;
  /** Epoch ms at which the probes stop. */
  until: number;
  timeoutMs: number;
}

/** Latencies in ms of each probe, and how many timed out or answered 5xx. */
export interface ProbeResult {
  health: number[];
  bare: number[];
  screen: number[];
  healthTimeouts: number;
  screenTimeouts: number;
  fivexx: number;
}

async function timed(url: string, init: RequestInit, timeoutMs: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * BENCH_ABUSE_PROBE_TRACE: a file that gets one line per probe (`seconds since the start, probe,
 * ms, monotonic µs at its start`), to see when slow answers came: the last figure is the clock of
 * a daemon's `--cpu-prof` profile (both CLOCK_MONOTONIC), so a slow answer finds its stretch there.
 */
const TRACE = process.env.BENCH_ABUSE_PROBE_TRACE;
const traced: string[] = [];
const trace = (t0: number, probe: string, ms: number) =>
  TRACE && traced.push(`${((performance.now() - t0 - ms) / 1000).toFixed(2)} ${probe} ${ms.toFixed(0)} ${(process.hrtime.bigint() / 1000n - BigInt(Math.round(ms * 1000))).toString()}`);

/** Run the probes of `o` until `o.until`. */
export async function runProbes(o: ProbeStart): Promise<ProbeResult> {
  const out: ProbeResult = { health: [], bare: [], screen: [], healthTimeouts: 0, screenTimeouts: 0, fivexx: 0 };
  const running = () => Date.now() < o.until;
  const t0 = performance.now();
  await Promise.all([
    (async () => {
      while (running()) {
        const r = await timed(`${o.daemonUrl}/health`, {}, o.timeoutMs);
        if (r.status === 0) out.healthTimeouts++;
        if (r.status >= 500) out.fivexx++;
        out.health.push(r.ms);
        trace(t0, 'health', r.ms);
        await pause(100);
      }
    })(),
    (async () => {
      while (running()) {
        out.bare.push((await timed(`${o.bareUrl}/health`, {}, o.timeoutMs)).ms);
        await pause(100);
      }
    })(),
    (async () => {
      for (let k = 0; running(); k++) {
        const body = JSON.stringify({ market: 'KOSPI', max_per: 5 + (k % 1000) / 100, per_page: 20 });
        const r = await timed(`${o.daemonUrl}/api/v1/screen`, { method: 'POST', headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' }, body }, o.timeoutMs);
        if (r.status === 0) out.screenTimeouts++;
        if (r.status >= 500) out.fivexx++;
        out.screen.push(r.ms);
        trace(t0, 'screen', r.ms);
        await pause(250);
      }
    })(),
  ]);
  if (TRACE) appendFileSync(TRACE, `${traced.join('\n')}\n`);
  return out;
}

// Run as a forked child: one start message, one result, exit.
if (process.send) {
  process.once('message', (start: ProbeStart) => {
    void runProbes(start).then((result) => process.send?.(result, () => process.exit(0)));
  });
  process.on('disconnect', () => process.exit(0));
}
