/**
 * `stockscreen loadtest` logic: options from flags, the accounts the run uses, progress
 * (a live Ink view on a terminal, plain stderr lines otherwise), the report on stdout
 * (a table, or the JSON report with --json) and optionally in a file.
 *
 * Accounts (issue 8: "a bench user whose tier does not throttle the run"): an admin from
 * STOCKSCREEN_ADMIN_EMAIL/PASSWORD, or a saved login that is an admin, makes the kit create
 * a dedicated bench user lifted to enterprise. A saved non-admin login is used as the bench
 * token as is; the kit then checks its remaining quota before each REST scenario and stops
 * that scenario with a hint when the planned requests would exceed it.
 */
import { writeFile } from 'node:fs/promises';
import { formatReport, parseDuration, runLoadtest, type LoadtestOptions, type Report } from '../../loadtest/index.js';
import { interruptSignal } from './interrupt.js';
import { createLoadtestLineSink, type LoadtestProgressSink } from './loadtest-progress.js';
import { jsonText } from './output.js';
import type { Session } from './session.js';

/** Flags of the command, already parsed by commander. */
export interface LoadtestFlags {
  duration: string;
  warmup?: string;
  connections?: number;
  rate?: number;
  cache?: boolean;
  allowRemote?: boolean;
  wsClients?: number;
  stocksPerClient?: number;
  market?: 'KOSPI' | 'KOSDAQ';
  out?: string;
}

/** Who the run acts as. */
export type LoadtestAccounts = Pick<LoadtestOptions, 'token' | 'adminToken' | 'admin'>;

/**
 * The accounts of the run: an admin from the environment wins; else the saved login of this
 * daemon, as admin (when its role is admin) or as the bench token; else none (the kit
 * registers a bench user of the default tier).
 */
export async function loadtestAccounts(session: Session): Promise<LoadtestAccounts> {
  const { env } = session;
  if (env.STOCKSCREEN_ADMIN_EMAIL && env.STOCKSCREEN_ADMIN_PASSWORD) {
    session.out.info('admin given: a dedicated bench user is created and lifted to enterprise');
    return { admin: { email: env.STOCKSCREEN_ADMIN_EMAIL, password: env.STOCKSCREEN_ADMIN_PASSWORD } };
  }
  const saved = await session.store.get(session.profile);
  if (!saved?.access_token || saved.url !== session.baseUrl) return {};
  let me: { email?: string; role?: string; tier?: string };
  try {
    // Also renews an expired access token of the profile.
    me = (await session.api.request<{ email?: string; role?: string; tier?: string }>({ path: '/api/v1/users/me' })).data;
  } catch {
    session.out.info(`the saved login of profile ${session.profile} was refused; a bench user of the default tier is registered`);
    return {};
  }
  const token = (await session.store.get(session.profile))?.access_token ?? saved.access_token;
  if (me.role === 'admin') {
    session.out.info(`${me.email ?? 'your login'} is an admin: a dedicated bench user is created and lifted to enterprise`);
    return { adminToken: token };
  }
  session.out.info(`bench token: your login ${me.email ?? ''} (tier ${me.tier ?? 'unknown'}); a REST scenario stops if its planned requests exceed the quota left`);
  return { token };
}

/** The options of the run from the flags and the accounts. */
export function loadtestOptions(session: Session, scenarios: string[], flags: LoadtestFlags, accounts: LoadtestAccounts): LoadtestOptions {
  const ws = {
    ...(flags.wsClients !== undefined ? { connections: flags.wsClients } : {}),
    ...(flags.stocksPerClient !== undefined ? { perConnection: flags.stocksPerClient } : {}),
    ...(flags.market !== undefined ? { market: flags.market } : {}),
  };
  return {
    url: session.baseUrl,
    scenarios: scenarios.length === 0 || scenarios.includes('all') ? 'all' : (scenarios as Exclude<LoadtestOptions['scenarios'], 'all' | undefined>),
    duration: parseDuration(flags.duration),
    ...(flags.warmup !== undefined ? { warmup: parseDuration(flags.warmup) } : {}),
    ...(flags.connections !== undefined ? { connections: flags.connections } : {}),
    ...(flags.rate !== undefined ? { rate: flags.rate } : {}),
    cache: flags.cache === true,
    allowRemote: flags.allowRemote === true,
    ...accounts,
    ...(Object.keys(ws).length > 0 ? { ws } : {}),
  };
}

/** True when the live view is drawn: stdout is a terminal without --json, and stderr (where it is drawn) is one too. */
export function useLiveView(session: Session): boolean {
  return session.out.mode === 'tty' && session.io.stderr.isTTY === true;
}

async function progressSink(session: Session): Promise<LoadtestProgressSink> {
  if (useLiveView(session)) {
    // Ink is loaded only when something is drawn (see commands/shared.ts).
    const { createInkLoadtestSink } = await import('../ui/loadtest-live.js');
    return createInkLoadtestSink(session.io.stderr, session.out.color);
  }
  return createLoadtestLineSink(session.io.stderr);
}

/** Run the scenarios and print the report; resolves with the exit code (0 pass, 1 fail, 2 aborted). */
export async function runLoadtestCommand(session: Session, scenarios: string[], flags: LoadtestFlags): Promise<number> {
  const options = loadtestOptions(session, scenarios, flags, await loadtestAccounts(session));
  const interrupt = interruptSignal(session.io);
  const sink = await progressSink(session);
  let report: Report;
  try {
    report = await runLoadtest(options, { signal: interrupt.signal, onProgress: (event) => sink.update(event) });
  } finally {
    await sink.close();
    interrupt.release();
  }
  // The file holds exactly what --json prints.
  if (flags.out) await writeFile(flags.out, jsonText(report));
  if (session.out.mode === 'json') session.out.json(report);
  else session.io.stdout.write(formatReport(report) + '\n');
  if (report.aborted) return 2;
  return report.pass === false ? 1 : 0;
}
