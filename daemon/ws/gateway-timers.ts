/**
 * The gateway's periodic work, which runs from attach() (the daemon's start) to close(), never
 * from construction: the protocol-level heartbeat (a connection that missed the previous pong is
 * dropped), the renewal of the counted connections' cap leases, the periodic session checkpoint,
 * and this instance's liveness key (refreshed every third of its lifetime, see session-store.ts).
 */
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Checkpointer } from './checkpoint.js';
import type { ConnectionCaps } from './connection-caps.js';
import type { Connection } from './connection.js';
import type { SessionStore } from './session-store.js';

/** What the timers act on. */
export interface GatewayTimerDeps {
  /** The gateway's open connections and their sockets (read at every beat, never copied). */
  sockets: ReadonlyMap<Connection, WebSocket>;
  caps: ConnectionCaps | undefined;
  checkpoints: Pick<Checkpointer, 'touchAll'>;
  sessions: Pick<SessionStore, 'markAlive'>;
  gatewayId: string;
  logger: Logger;
  options: { heartbeatMs: number; capLeaseMs: number; checkpointMs: number; instanceTtlMs: number };
}

/** Start the timers (and write the liveness key now); the function returned stops them. */
export function startGatewayTimers(deps: GatewayTimerDeps): () => void {
  const { sockets, caps, checkpoints, sessions, gatewayId, logger, options } = deps;
  const heartbeat = setInterval(() => {
    for (const [conn, ws] of sockets) {
      if (conn.heartbeat()) ws.ping();
      else ws.terminate();
    }
  }, options.heartbeatMs);
  heartbeat.unref();
  const capRenewal = caps
    ? setInterval(() => void caps.renew([...sockets.keys()].flatMap((c) => c.capSlot() ?? [])), Math.max(10, Math.floor(options.capLeaseMs / 3)))
    : undefined;
  capRenewal?.unref();
  const checkpointTimer = setInterval(() => checkpoints.touchAll(sockets.keys()), options.checkpointMs);
  checkpointTimer.unref();
  const markAlive = () =>
    sessions.markAlive(gatewayId, options.instanceTtlMs).catch((err: Error) => logger.debug({ err: err.message }, 'gateway liveness key not refreshed'));
  void markAlive();
  const liveness = setInterval(markAlive, Math.max(10, Math.floor(options.instanceTtlMs / 3)));
  liveness.unref();
  return () => {
    clearInterval(heartbeat);
    clearInterval(checkpointTimer);
    clearInterval(capRenewal);
    clearInterval(liveness);
  };
}
