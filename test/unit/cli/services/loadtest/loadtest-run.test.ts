/**
 * `stockscreen loadtest` flags → options: `ws-fanout --clients N --rate R` is the
 * spec's real-time figure (R messages/s per client); REST runs keep --rate as requests/s.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadtestOptions } from '../../../../../cli/services/loadtest/loadtest-run.js';
import type { Session } from '../../../../../cli/services/session/session.js';
import { resolveOptions } from '../../../../../loadtest/options.js';

function session(baseUrl = 'http://127.0.0.1:8000', record?: { pid: number; url: string }): Session {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-run-'));
  const paths = { pidFile: join(dir, 'stockscreend.pid'), daemonStateFile: join(dir, 'stockscreend.json') };
  if (record) {
    writeFileSync(paths.pidFile, `${record.pid}\n`);
    writeFileSync(paths.daemonStateFile, JSON.stringify({ ...record, logFile: 'x', startedAt: 'now' }));
  }
  return { baseUrl, paths } as unknown as Session;
}

describe('loadtest flags', () => {
  it('reads --clients and --rate of a ws-fanout run as clients and messages/s per client', () => {
    const o = resolveOptions(loadtestOptions(session(), ['ws-fanout'], { duration: '20s', clients: 10_000, rate: 10, daemonPid: 4242 }, {}));
    expect(o.wsConnections).toBe(10_000);
    expect(o.ws).toMatchObject({ ratePerClient: 10, daemonPid: 4242 });
    expect(o.rate).toBeUndefined();
  });

  it('keeps --rate as the request rate when REST scenarios run', () => {
    const o = resolveOptions(loadtestOptions(session(), ['screen-simple', 'ws-fanout'], { duration: '20s', rate: 50 }, {}));
    expect(o.rate).toBe(50);
    expect(o.ws.ratePerClient).toBeUndefined();
  });

  it("takes the daemon pid from the record `daemon start` left when that daemon is the target (this test's own process stands in)", () => {
    const url = 'http://127.0.0.1:8123';
    const alive = resolveOptions(loadtestOptions(session(url, { pid: process.pid, url }), ['ws-fanout'], { duration: '5s' }, {}));
    // isDaemonAlive checks the command line for stockscreend on Linux: this process is not one, so no pid is taken.
    expect(alive.ws.daemonPid).toBeUndefined();
    const other = resolveOptions(loadtestOptions(session(url), ['ws-fanout'], { duration: '5s', daemonPid: 77 }, {}));
    expect(other.ws.daemonPid).toBe(77);
  });
});
