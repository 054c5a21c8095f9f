/**
 * Session checkpoints (sessions must survive a daemon that dies without closing
 * its sockets): the session of every open connection is written to Redis as a `live`
 * record (session-store.ts) when its subscriptions or user change and every checkpoint
 * interval. Requests are coalesced: everything asked for within one event-loop turn is
 * written in one pipeline (in chunks), at most once per connection.
 *
 * A checkpoint records the position of the last event handed to the socket, so a restore
 * after a crash replays from there: what the client received after the last checkpoint
 * (at most one interval) is sent again.
 */
import type { Logger } from 'pino';
import type { Connection } from './connection.js';
import type { SessionStore } from './session-store.js';

/** Collaborators of the checkpointer. */
export interface CheckpointerDeps {
  sessions: Pick<SessionStore, 'checkpoint'>;
  logger: Logger;
  /** Records per pipeline (default 500). */
  chunk?: number;
  /** Called after each record written (tests await it instead of sleeping). */
  onWritten?(conn: Connection, sessionId: string): void;
}

/** Coalesced checkpoint writer. */
export interface Checkpointer {
  /** Write the connection's checkpoint in the next event-loop turn. */
  touch(conn: Connection): void;
  /** Write every given connection's checkpoint in the next turn (the periodic checkpoint). */
  touchAll(conns: Iterable<Connection>): void;
  /** Resolves when the writes requested so far are done. */
  idle(): Promise<void>;
  /** Drop pending requests; later ones are ignored. */
  stop(): void;
}

/** Create the checkpointer. */
export function createCheckpointer(deps: CheckpointerDeps): Checkpointer {
  const chunk = deps.chunk ?? 500;
  let pending = new Set<Connection>();
  let scheduled: NodeJS.Immediate | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let stopped = false;
  let lastError = '';

  async function write(conns: Connection[]): Promise<void> {
    for (let i = 0; i < conns.length; i += chunk) {
      // Read at write time: a connection closed meanwhile has saved its session itself.
      const batch = conns.slice(i, i + chunk).filter((c) => c.checkpointable());
      const items = batch.map((c) => ({ id: c.sessionId, state: c.sessionState(), owner: c.owner() }));
      let results: boolean[];
      try {
        results = await deps.sessions.checkpoint(items);
        lastError = '';
      } catch (err) {
        const message = (err as Error).message;
        if (message !== lastError) deps.logger.warn({ err: message }, 'WebSocket session checkpoint failed; retrying on the next one');
        lastError = message;
        continue;
      }
      results.forEach((ok, k) => {
        const conn = batch[k]!;
        if (ok) return deps.onWritten?.(conn, items[k]!.id);
        // Restored elsewhere (this instance was presumed dead): stop writing a session that moved on.
        conn.detach();
        deps.logger.warn({ session: items[k]!.id, connection: conn.id }, 'WebSocket session taken over by another connection; no longer checkpointed here');
      });
    }
  }

  function flush(): void {
    scheduled = undefined;
    const conns = [...pending];
    pending = new Set();
    inFlight = inFlight.then(() => write(conns));
  }

  function schedule(): void {
    if (!stopped && !scheduled) scheduled = setImmediate(flush);
  }

  return {
    touch(conn) {
      if (stopped) return;
      pending.add(conn);
      schedule();
    },
    touchAll(conns) {
      if (stopped) return;
      for (const c of conns) pending.add(c);
      schedule();
    },
    idle: () => inFlight,
    stop() {
      stopped = true;
      if (scheduled) clearImmediate(scheduled);
      scheduled = undefined;
      pending.clear();
    },
  };
}
