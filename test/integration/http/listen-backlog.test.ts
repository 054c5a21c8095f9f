/**
 * The listen backlog: after a restart every client reconnects at once, and connections the
 * daemon has not accepted yet wait in the kernel's accept queue, whose length is the backlog
 * given to listen() (capped by net.core.somaxconn). The kernel's own view of the listening
 * socket (`ss`: Send-Q of a LISTEN socket is its backlog) shows what the daemon asked for.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

/** The backlog of the socket listening on 127.0.0.1:`port`, as the kernel holds it. */
function kernelBacklog(port: number): number {
  const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
  const sendQ = line.split(/\s+/)[2];
  if (!line.startsWith('LISTEN') || sendQ === undefined) throw new Error(`no listening socket on ${port}: ${line}`);
  return Number(sendQ);
}

const hasSs = ['/usr/bin/ss', '/bin/ss', '/usr/sbin/ss', '/sbin/ss'].some(existsSync);
const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());

describe.skipIf(!hasSs)('the daemon listens with the configured backlog', () => {
  const daemons: TestDaemon[] = [];
  afterEach(async () => {
    for (const d of daemons.splice(0)) await d.close();
  });

  it('uses listen_backlog for its listening socket', async () => {
    // Given a daemon configured with a backlog of 137 (below any somaxconn)
    const t = await startTestDaemon('backlog-set', { listen_backlog: 137 });
    daemons.push(t);
    // Then the kernel holds its listening socket with that backlog
    expect(kernelBacklog(t.daemon.address().port)).toBe(137);
  });

  it('defaults to 4096, not Node’s 511 (the kernel caps it at somaxconn)', async () => {
    const t = await startTestDaemon('backlog-default');
    daemons.push(t);
    expect(kernelBacklog(t.daemon.address().port)).toBe(Math.min(4096, somaxconn));
  });
});
