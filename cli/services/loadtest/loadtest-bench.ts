/**
 * The accounts `stockscreen loadtest` runs as. One bench account per daemon and
 * profile is kept in `loadtest-bench.json` beside the credentials (mode 0600); later runs reuse
 * its tokens (renewed with its refresh token, never a fresh login). Run by an admin, the bench
 * account is given a load-test exemption for the run; run by anyone else, the command uses the
 * caller's own login when an admin exempted it, and otherwise says exactly what to do.
 * `--cleanup` deletes the bench account and every other `loadtest-…@example.com` account.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { PageMeta } from '../../../daemon/contract/envelope.js';
import type { LoadtestExemption, PublicUser, TokenPair } from '../../../daemon/contract/users.js';
import { API_PREFIX, createApiClient, type ApiClient } from '../transport/api-client.js';
import { createCredentialsStore, credentialsFromTokens, type CredentialsStore } from '../session/credentials.js';
import { CliError } from '../session/errors.js';
import { grantLine } from './loadtest-exemptions.js';
import type { Session } from '../session/session.js';
import { createTokenSource } from '../session/token-source.js';

/** Emails of the accounts load tests create (the kit's fresh users and the bench account). */
export const LOADTEST_EMAIL = /^loadtest-[0-9a-f-]+@example\.com$/;

/** How long the bench account's exemption lasts from the start of a run. */
export const BENCH_GRANT_S = 2 * 3600;

/** Who the run acts as: the bench token and, for an admin, the admin token too. */
export interface BenchAccounts {
  token: string;
  adminToken?: string;
}

/** The file of bench accounts, beside the credentials. */
export function benchStore(session: Session): CredentialsStore {
  return createCredentialsStore(join(session.paths.configDir, 'loadtest-bench.json'));
}

const benchKey = (session: Session) => `${session.profile} ${session.baseUrl}`;

/** A client acting as the login saved under `key` in `store`, renewing it with its refresh token. */
function storedClient(session: Session, store: CredentialsStore, key: string): ApiClient {
  const anonymous = createApiClient({ baseUrl: session.baseUrl });
  const refresh = async (refreshToken: string) =>
    (await anonymous.request<TokenPair>({ method: 'POST', path: `${API_PREFIX}/auth/refresh`, body: { refresh_token: refreshToken }, auth: false })).data;
  return createApiClient({ baseUrl: session.baseUrl, tokens: createTokenSource({ store, profile: key, refresh }) });
}

/** Log in once and keep the pair under `key` (later runs renew it instead of logging in). */
async function saveLogin(session: Session, store: CredentialsStore, key: string, email: string, password: string): Promise<void> {
  const pair = await session.api.request<TokenPair>({ method: 'POST', path: `${API_PREFIX}/auth/login`, body: { email, password }, auth: false });
  await store.save(key, credentialsFromTokens(pair.data, session.baseUrl, email));
}

/** The saved login's account, when it works (also renews its access token). */
async function savedAccount(session: Session): Promise<PublicUser | undefined> {
  const saved = await session.store.get(session.profile);
  if (!saved?.access_token || saved.url !== session.baseUrl) return undefined;
  try {
    return (await session.api.request<PublicUser>({ path: `${API_PREFIX}/users/me` })).data;
  } catch {
    return undefined;
  }
}

/** An admin client: STOCKSCREEN_ADMIN_EMAIL/PASSWORD (its login kept and renewed like the bench's), else the saved login when it is an admin. */
async function adminClient(session: Session, me: PublicUser | undefined): Promise<ApiClient | undefined> {
  const { STOCKSCREEN_ADMIN_EMAIL: email, STOCKSCREEN_ADMIN_PASSWORD: password } = session.env;
  if (email && password) {
    const store = benchStore(session);
    const key = `admin:${email.toLowerCase()} ${session.baseUrl}`;
    if (!(await store.get(key))) await saveLogin(session, store, key, email, password);
    return storedClient(session, store, key);
  }
  return me?.role === 'admin' ? session.api : undefined;
}

/** The bench account's client: the kept one, or a new account registered and logged in once. */
async function benchClient(session: Session): Promise<{ api: ApiClient; me: PublicUser }> {
  const store = benchStore(session);
  const key = benchKey(session);
  if (await store.get(key)) {
    const api = storedClient(session, store, key);
    const me = await api.request<PublicUser>({ path: `${API_PREFIX}/users/me` }).catch(() => undefined);
    if (me) return { api, me: me.data };
    await store.remove(key); // deleted or revoked on the daemon: make a new one
  }
  const email = `loadtest-${randomUUID()}@example.com`;
  const password = randomBytes(18).toString('base64url');
  await session.api.request({ method: 'POST', path: `${API_PREFIX}/auth/register`, body: { email, password, name: 'load-test bench' }, auth: false });
  await saveLogin(session, store, key, email, password);
  const api = storedClient(session, store, key);
  return { api, me: (await api.request<PublicUser>({ path: `${API_PREFIX}/users/me` })).data };
}

/** Exact instructions for a caller who is not an admin and not exempt. */
function notExempt(me: PublicUser | undefined): CliError {
  const who = me?.email ?? 'you@example.com';
  const admin = 'or run it as an admin (`stockscreen login` with an admin account, or STOCKSCREEN_ADMIN_EMAIL and STOCKSCREEN_ADMIN_PASSWORD), which creates an exempt bench account';
  return new CliError({
    code: 'FORBIDDEN',
    message: me
      ? `${who} has no load-test exemption: its ${me.tier} tier and the endpoint limits (POST /screen: 50 an hour) would answer most of the run with 429`
      : 'a load test needs an account with a load-test exemption, and this profile is not logged in to this daemon',
    hint: me
      ? `ask an admin to run \`stockscreen admin users loadtest-grant ${who} --for 2h\`, then run this again; ${admin}`
      : `log in (\`stockscreen login --email ${who}\`) and ask an admin to run \`stockscreen admin users loadtest-grant ${who} --for 2h\`; ${admin}`,
  });
}

/**
 * The accounts of a run; grants the bench account its exemption when an admin is at hand.
 * @throws CliError FORBIDDEN (with what to do) when the caller is neither an admin nor exempt
 */
export async function benchAccounts(session: Session): Promise<BenchAccounts> {
  const me = await savedAccount(session);
  const admin = await adminClient(session, me);
  if (!admin) {
    if (!me?.loadtest_exempt_until) throw notExempt(me);
    session.out.info(`running as ${me.email} (your login of profile ${session.profile}), exempt from rate limits until ${me.loadtest_exempt_until}`);
    return { token: (await session.store.get(session.profile))!.access_token };
  }
  const bench = await benchClient(session);
  const grant = await admin.request<LoadtestExemption>({
    method: 'PUT',
    path: `${API_PREFIX}/admin/users/${bench.me.id}/loadtest-exemption`,
    body: { duration_s: BENCH_GRANT_S },
  });
  // Said before anything runs: which account, and why not the user's own login.
  const by = session.env.STOCKSCREEN_ADMIN_EMAIL && session.env.STOCKSCREEN_ADMIN_PASSWORD
    ? `the admin ${session.env.STOCKSCREEN_ADMIN_EMAIL} of STOCKSCREEN_ADMIN_EMAIL/STOCKSCREEN_ADMIN_PASSWORD (unset them to run as your own login)`
    : `your admin login ${me?.email ?? ''}`.trimEnd();
  const notYours = me && me.email !== bench.me.email ? `; your login ${me.email} is not used` : '';
  session.out.info(`running as ${bench.me.email}, the bench account kept for this daemon and profile, made exempt by ${by}${notYours}`);
  session.out.info(`bench account (kept for this daemon and profile; \`stockscreen loadtest --cleanup\` removes it): ${grantLine(grant.data)}`);
  const stored = (await benchStore(session).get(benchKey(session)))!;
  return { token: stored.access_token, adminToken: await tokenOf(admin, session) };
}

async function tokenOf(admin: ApiClient, session: Session): Promise<string> {
  if (admin === session.api) return (await session.store.get(session.profile))!.access_token;
  const { STOCKSCREEN_ADMIN_EMAIL: email } = session.env;
  return (await benchStore(session).get(`admin:${email!.toLowerCase()} ${session.baseUrl}`))!.access_token;
}

/**
 * `stockscreen loadtest --cleanup`: delete the bench account and every `loadtest-…@example.com`
 * account (with an admin), forget the kept logins; returns the lines to print.
 */
export async function cleanupBench(session: Session): Promise<string[]> {
  const store = benchStore(session);
  const me = await savedAccount(session);
  const admin = await adminClient(session, me);
  const lines: string[] = [];
  if (admin) {
    const emails = await deleteLoadtestAccounts(admin);
    lines.push(emails.length === 0 ? 'no load-test accounts on the daemon' : `deleted ${emails.length} load-test account(s): ${emails.join(', ')}`);
  } else {
    lines.push('not an admin: the accounts on the daemon stay (an admin can run `stockscreen loadtest --cleanup`)');
  }
  for (const key of await store.profiles()) {
    if (key.endsWith(` ${session.baseUrl}`)) await store.remove(key);
  }
  lines.push(`forgot the kept load-test logins for ${session.baseUrl} (${store.file})`);
  return lines;
}

async function deleteLoadtestAccounts(admin: ApiClient): Promise<string[]> {
  const found: PublicUser[] = [];
  for (let page = 1; ; page++) {
    const res = await admin.request<PublicUser[]>({ path: `${API_PREFIX}/admin/users`, query: { page, limit: 500 } });
    found.push(...res.data.filter((u) => LOADTEST_EMAIL.test(u.email)));
    const meta = (res.body as { meta?: Partial<PageMeta> }).meta;
    if (res.data.length < 500 || !meta?.total_pages || page >= meta.total_pages) break;
  }
  for (const user of found) await admin.request({ method: 'DELETE', path: `${API_PREFIX}/admin/users/${user.id}` });
  return found.map((u) => u.email);
}
