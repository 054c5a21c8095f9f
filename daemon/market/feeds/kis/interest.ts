/**
 * Which codes deserve the few real-time registrations: the codes users watch right now (the
 * WebSocket connections of every daemon, each daemon reporting its own counts to Redis) and
 * the codes of active price alerts. Most-watched first, then alert codes, then by code, so the
 * choice is stable while interest does not change.
 */
import type { Redis } from 'ioredis';

/** Collaborators of the interest board. */
export interface InterestDeps {
  redis: Redis;
  key(...parts: string[]): string;
  daemonId: string;
  /** This daemon's connections per watched code. */
  watchers(): Map<string, number>;
  /** Codes of active price alerts (with repeats: one per alert). */
  alertCodes(): Promise<string[]>;
  /** How long a daemon's report stays without renewal (default 10 s). */
  ttlMs?: number;
}

/** Watch counts of every daemon and the ranking the feed leader registers from. */
export interface InterestBoard {
  /** Write this daemon's counts (every daemon, every few seconds). */
  report(): Promise<void>;
  /** Codes ranked by interest (all daemons' watchers, then active alerts). */
  ranked(): Promise<{ code: string; watchers: number; alerts: number }[]>;
}

/** Create the interest board. */
export function createInterestBoard(deps: InterestDeps): InterestBoard {
  const { redis } = deps;
  const ttlMs = deps.ttlMs ?? 10_000;
  const daemonsKey = deps.key('kis', 'interest', 'daemons');
  const reportKey = (id: string) => deps.key('kis', 'interest', id);

  return {
    async report() {
      const counts = Object.fromEntries(deps.watchers());
      await redis.multi().set(reportKey(deps.daemonId), JSON.stringify(counts), 'PX', ttlMs).sadd(daemonsKey, deps.daemonId).exec();
    },
    async ranked() {
      const ids = await redis.smembers(daemonsKey);
      const watchers = new Map<string, number>();
      if (ids.length) {
        const raws = await redis.mget(...ids.map(reportKey));
        const gone: string[] = [];
        raws.forEach((raw, i) => {
          if (!raw) return void gone.push(ids[i]!);
          try {
            for (const [code, n] of Object.entries(JSON.parse(raw) as Record<string, number>)) if (typeof n === 'number' && n > 0) watchers.set(code, (watchers.get(code) ?? 0) + n);
          } catch {
            // A report this build cannot read is ignored until its writer renews it.
          }
        });
        if (gone.length) await redis.srem(daemonsKey, ...gone);
      }
      const alerts = new Map<string, number>();
      for (const code of await deps.alertCodes()) alerts.set(code, (alerts.get(code) ?? 0) + 1);
      const codes = new Set([...watchers.keys(), ...alerts.keys()]);
      return [...codes]
        .map((code) => ({ code, watchers: watchers.get(code) ?? 0, alerts: alerts.get(code) ?? 0 }))
        .sort((a, b) => b.watchers - a.watchers || b.alerts - a.alerts || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    },
  };
}
