/**
 * Entry of the bench's child processes (forked by children.ts), so the servers under test
 * never share an event loop with the load generator. The parent sends one `start` message
 * `{ role: 'daemon', config } | { role: 'baseline' | 'bare-express', options }` and later `close`; the child
 * answers `{ type: 'ready', urls, pid }` or `{ type: 'failed', message }`, and exits after
 * closing (or when the parent goes away).
 */
import { parseConfig } from '../../daemon/config.js';
import { createDaemon } from '../../daemon/daemon.js';
import { startBaselines, type BaselineOptions } from './baseline-servers.js';
import { startBareExpress, type BareExpressOptions } from './bare-express.js';

/** The start message. */
export type ChildStart =
  | { role: 'daemon'; config: Record<string, unknown> }
  | { role: 'baseline'; options: BaselineOptions }
  | { role: 'bare-express'; options: BareExpressOptions };

/** Messages of the child. */
export type ChildMessage = { type: 'ready'; urls: Record<string, string>; pid: number } | { type: 'failed'; message: string } | { type: 'closed' };

async function start(msg: ChildStart): Promise<{ urls: Record<string, string>; close(): Promise<void> }> {
  if (msg.role === 'bare-express') {
    const b = await startBareExpress(msg.options);
    return { urls: { http: b.url }, close: b.close };
  }
  if (msg.role === 'baseline') {
    const b = await startBaselines(msg.options);
    return { urls: { http: b.httpUrl, ws: b.wsHttpUrl }, close: b.close };
  }
  const daemon = createDaemon(parseConfig(msg.config));
  await daemon.start();
  return { urls: { http: daemon.url() }, close: () => daemon.close() };
}

function send(m: ChildMessage): void {
  process.send?.(m);
}

let running: { close(): Promise<void> } | undefined;
let closing = false;

async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await running?.close().catch(() => undefined);
  send({ type: 'closed' });
  process.disconnect?.();
  // Whatever handle a closed daemon still holds, the child's work is done.
  setTimeout(() => process.exit(0), 1000);
}

process.on('message', (raw: unknown) => {
  const msg = raw as ChildStart | { role?: undefined; type: 'close' };
  if ('type' in msg && msg.type === 'close') {
    void shutdown();
    return;
  }
  start(msg as ChildStart).then(
    (r) => {
      running = r;
      send({ type: 'ready', urls: r.urls, pid: process.pid });
    },
    (err: Error) => send({ type: 'failed', message: err.message }),
  );
});
process.on('disconnect', () => void shutdown());
process.on('SIGINT', () => undefined); // the parent decides when to stop (Ctrl-C reaches the whole group)
