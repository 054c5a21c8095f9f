/**
 * The `kis` data source as the source registry reports it (`GET /api/v1/admin/sources`,
 * `stockscreen sources test kis`): its status in the registry's `SourceStatus` shape, and a
 * test that checks the key, the token and one call of each kind (a multi-price call; the
 * WebSocket approval and one registration, or the leader's live session when it has one).
 */
import WebSocket from 'ws';
import type { Redis } from 'ioredis';
import { kstDate, type TradingSession } from '../../market-clock.js';
import { KIS, parseSystemMessage, registrationMessage } from './protocol.js';
import type { KisRest } from './rest-client.js';
import { callsToday, freshnessOf, readKisStatus } from './status-record.js';
import type { KisCredentials } from './token-cache.js';

/** A data source's status (the source registry's contract). */
export interface SourceStatus {
  name: string;
  kind: string;
  configured: boolean;
  /** ISO time of the last successful call or frame. */
  last_success_at: string | null;
  /** KST date of the last success. */
  last_success_date: string | null;
  last_error: { at: string; code: string; message: string } | null;
  calls_today: number;
  stale: boolean;
  stale_reason: string | null;
}

/** One check of a source test. */
export interface SourceCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** The result of testing a source. */
export interface SourceTestResult {
  ok: boolean;
  checks: SourceCheck[];
}

/** What the registry keeps per source. */
export interface SourceStatusProvider {
  status(): Promise<SourceStatus>;
  test?(): Promise<SourceTestResult>;
}

/** Collaborators of the kis status provider. */
export interface KisStatusDeps {
  configured: boolean;
  redis: Redis;
  key(...parts: string[]): string;
  session(): TradingSession | null;
  now(): number;
  /** Absent when the key is not configured. */
  rest?: Pick<KisRest, 'multiPrice'>;
  credentials?: KisCredentials;
  wsUrl: string;
  /** A listed code for the test call (default 005930). */
  sampleCode?(): string | undefined;
}

const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);

/** Create the `kis` status provider. */
export function createKisStatusProvider(deps: KisStatusDeps): SourceStatusProvider {
  async function wsCheck(): Promise<SourceCheck> {
    const record = await readKisStatus(deps.redis, deps.key);
    if (record?.socket?.connected) {
      // The provider allows one session per key: the leader's open session is the proof, a second one would disturb it.
      return { name: 'websocket', ok: true, detail: `the feed leader's session is connected with ${record.socket.registered} registration(s)` };
    }
    const approval = await deps.credentials!.approvalKey();
    const code = deps.sampleCode?.() ?? '005930';
    const url = `${deps.wsUrl.replace(/\/+$/, '')}${KIS.wsPath}`;
    return new Promise<SourceCheck>((resolve) => {
      const ws = new WebSocket(url, { handshakeTimeout: 5_000 });
      const done = (check: SourceCheck) => {
        clearTimeout(timer);
        ws.removeAllListeners('message');
        ws.on('error', () => undefined);
        if (ws.readyState === WebSocket.OPEN) ws.send(registrationMessage(approval, KIS.trade, code, false));
        ws.close();
        resolve(check);
      };
      const timer = setTimeout(() => done({ name: 'websocket', ok: false, detail: 'no acknowledgement within 5 s' }), 5_000);
      ws.on('open', () => ws.send(registrationMessage(approval, KIS.trade, code, true)));
      ws.on('message', (data) => {
        const msg = parseSystemMessage(data.toString());
        if (!msg || msg.pingpong || msg.trId !== KIS.trade) return;
        done({ name: 'websocket', ok: msg.ok, detail: msg.ok ? `registered ${code} for real-time trades (${msg.message ?? 'ok'})` : `${msg.msgCode ?? 'error'} ${msg.message ?? ''}`.trim() });
      });
      ws.on('error', (err) => done({ name: 'websocket', ok: false, detail: err.message }));
    });
  }

  return {
    async status() {
      const record = await readKisStatus(deps.redis, deps.key);
      const fresh = deps.configured ? freshnessOf(record, deps.session()) : { stale: false, stale_reason: null };
      const success = record?.last_success_at ?? null;
      return {
        name: 'kis', kind: 'intraday', configured: deps.configured,
        last_success_at: iso(success), last_success_date: success ? kstDate(success) : null,
        last_error: record?.last_error ? { at: iso(record.last_error.at)!, code: record.last_error.code, message: record.last_error.message } : null,
        calls_today: await callsToday(deps.redis, deps.key, kstDate(deps.now())),
        stale: fresh.stale, stale_reason: fresh.stale_reason,
      };
    },
    async test() {
      const checks: SourceCheck[] = [];
      if (!deps.configured || !deps.credentials || !deps.rest) {
        return { ok: false, checks: [{ name: 'key', ok: false, detail: 'STOCKSCREEN_KIS_APP_KEY and STOCKSCREEN_KIS_APP_SECRET are not both set' }] };
      }
      checks.push({ name: 'key', ok: true, detail: 'app key and secret are set' });
      let token: string | undefined;
      try {
        token = await deps.credentials.token();
        checks.push({ name: 'token', ok: true, detail: 'access token available (cached and shared; issued at most once a minute)' });
      } catch (err) {
        checks.push({ name: 'token', ok: false, detail: (err as Error).message });
      }
      if (token) {
        const code = deps.sampleCode?.() ?? '005930';
        try {
          const rows = await deps.rest.multiPrice(token, [code]);
          checks.push({ name: 'multi_price', ok: rows.length > 0, detail: rows.length > 0 ? `one multi-price call answered ${rows.length} row(s) for ${code}` : `the multi-price call answered no row for ${code}` });
        } catch (err) {
          checks.push({ name: 'multi_price', ok: false, detail: (err as Error).message });
        }
      }
      try {
        checks.push(await wsCheck());
      } catch (err) {
        checks.push({ name: 'websocket', ok: false, detail: (err as Error).message });
      }
      return { ok: checks.every((c) => c.ok), checks };
    },
  };
}
