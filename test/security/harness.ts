/**
 * A daemon for the security suite: one market with a few stocks and bars, an admin, and
 * helpers that read answers the way a hostile client would (status, envelope, no stack).
 */
import { expect } from 'vitest';
import type { ConfigInput } from '../../daemon/config.js';
import { bar, stock } from '../helpers/portfolio-harness.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Stock codes loaded into the security daemon. */
export const CODES = ['005930', '000660'] as const;
/** The admin of the security daemon. */
export const ADMIN = { email: 'root@example.com', password: 'admin-password-1' };

/** A security daemon and its admin's access token. */
export interface SecurityDaemon {
  t: TestDaemon;
  adminToken: string;
}

/** Start a daemon with the two stocks of CODES and an admin. */
export async function startSecurityDaemon(label: string, config: Partial<ConfigInput> = {}): Promise<SecurityDaemon> {
  // Telegram at a closed local port: a test message fails at once and nothing leaves the machine.
  const t = await startTestDaemon(label, { admin_email: ADMIN.email, admin_password: ADMIN.password, telegram_api_url: 'http://127.0.0.1:1', ...config });
  const ctx = t.daemon.context();
  await ctx.store.marketData.apply({
    stocks: CODES.map((c) => stock(c, `Stock ${c}`, 'KOSPI', 'Tech')),
    bars: CODES.flatMap((c) => ['2025-01-02', '2025-01-03', '2025-01-06'].map((d) => bar(c, d, 10_000))),
    halts: [], financials: [], index: [],
  });
  await ctx.screening.snapshot.refresh();
  const login = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
  const adminToken = ((await login.json()) as { access_token: string }).access_token;
  return { t, adminToken };
}

/** The body of a response as text and, when it is JSON, parsed. */
export async function readBody(res: Response): Promise<{ text: string; json: any }> {
  const text = await res.text();
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return { text, json: undefined };
  }
}

const STACK = /\bat [^\s]+ \(|node:internal|\/daemon\/|\.ts:\d+|\.js:\d+:\d+/;

/** True when the text shows a stack frame or a source path. */
export function leaksStack(text: string): boolean {
  return STACK.test(text);
}

/** Assert an error answer: the status, the spec's envelope, no stack trace. */
export async function expectError(res: Response, status: number, code?: string): Promise<any> {
  const { text, json } = await readBody(res);
  expect(res.status, text.slice(0, 300)).toBe(status);
  expect(leaksStack(text), text.slice(0, 300)).toBe(false);
  expect(json).toMatchObject({ status: 'error', error: { code: code ?? expect.any(String), message: expect.any(String), details: expect.any(Object) }, meta: { request_id: expect.any(String) } });
  return json;
}
