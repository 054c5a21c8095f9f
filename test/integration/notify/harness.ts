/**
 * A daemon for notification tests, built by createDaemon: a small market of stocks closing at
 * 10,000 KRW, ticks posted through `POST /admin/ticks` (feed `ingest`, market always open),
 * an admin, and helpers to create channels and alerts and read the delivery log.
 */
import { expect } from 'vitest';
import type { ConfigInput } from '../../../daemon/config.js';
import type { DaemonContext, DaemonOverrides } from '../../../daemon/daemon.js';
import { bar, stock } from '../../helpers/portfolio-harness.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

/** The stocks of the test market. */
export const CODES = ['200001', '200002', '200003', '200004', '200005', '200006'] as const;
const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const DATES = Array.from({ length: 5 }, (_, i) => new Date(Date.UTC(2025, 0, 6 + i)).toISOString().slice(0, 10));

/** Settings that make retries quick in tests. */
export const QUICK_RETRIES: Partial<ConfigInput> = { delivery_retry_base_ms: 50, delivery_retry_max_ms: 200, delivery_timeout_ms: 2000 };

/** A started notification test daemon. */
export interface NotifyDaemon {
  t: TestDaemon;
  ctx: DaemonContext;
  admin: string;
  /** POST one or more ticks; resolves once the firings they caused are recorded (their deliveries are queued). */
  tick(ticks: { code: string; price: number }[]): Promise<void>;
  /** POST and expect `status`; returns `data`. */
  call(method: string, path: string, token: string, json?: unknown, status?: number): Promise<any>;
  close(): Promise<void>;
}

/** Start a notification test daemon (its own store and Redis prefix unless `config` names them). */
export async function startNotifyDaemon(label: string, config: Partial<ConfigInput> = {}, overrides: DaemonOverrides = {}): Promise<NotifyDaemon> {
  const t = await startTestDaemon(label, {
    feed: 'ingest', market_clock: 'always-open', admin_email: ADMIN.email, admin_password: ADMIN.password, webhook_allow_private: true, metrics_public: true, ...config,
  }, overrides);
  const ctx = t.daemon.context();
  if ((await ctx.store.stocks.count()) === 0) {
    await ctx.store.marketData.apply({
      stocks: CODES.map((c) => stock(c, `Stock ${c}`, 'KOSPI', 'Test')),
      bars: CODES.flatMap((c) => DATES.map((d) => bar(c, d, 10_000, 1_000))),
      halts: [], financials: [], index: [],
    });
  }
  await ctx.screening.snapshot.refresh();
  await ctx.realtime.feed.refreshStocks();
  const login = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
  const admin = ((await login.json()) as { access_token: string }).access_token;
  const volumes = new Map<string, number>();
  const call = async (method: string, path: string, token: string, json?: unknown, status?: number) => {
    const res = await t.request(`/api/v1${path}`, { method, token, json });
    const text = await res.text();
    if (status !== undefined) expect(res.status, text.slice(0, 500)).toBe(status);
    return text ? JSON.parse(text).data : undefined;
  };
  return {
    t, ctx, admin, call,
    async tick(ticks) {
      const body = ticks.map(({ code, price }) => {
        const v = (volumes.get(code) ?? 0) + 1;
        volumes.set(code, v);
        return { code, price, volume: v };
      });
      const res = await t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks: body } });
      expect(res.status, await res.clone().text()).toBe(202);
      await ctx.realtime.alertEvaluator.drain();
      await ctx.realtime.screenAlertEvaluator.drain();
    },
    close: () => t.close(),
  };
}

/** Poll `check` until it returns a value: a condition over queued work, never a fixed sleep. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
