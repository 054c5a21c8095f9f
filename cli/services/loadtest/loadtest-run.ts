/**
 * `stockscreen loadtest` logic: options from flags, the accounts the run uses, progress
 * (a live Ink view on a terminal, plain stderr lines otherwise), the report on stdout
 * (a table, or the JSON report with --json) and optionally in a file.
 *
 * Accounts: see loadtest-bench.ts — a kept bench account given a load-test
 * exemption by an admin, or the caller's own exempt login.
 */
import { writeFile } from 'node:fs/promises';
import { checkTarget, formatReport, parseDuration, runLoadtest, type LoadtestOptions, type Report } from '../../../loadtest/index.js';
import { isDaemonAlive, readDaemonRecord, readPid } from '../daemon/daemon-state.js';
import { benchAccounts, cleanupBench } from './loadtest-bench.js';
import { interruptSignal } from '../session/interrupt.js';
import { createLoadtestLineSink, type LoadtestProgressSink } from './loadtest-progress.js';
import { jsonText } from '../output/output.js';
import type { Session } from '../session/session.js';

/** Flags of the command, already parsed by commander. */
export interface LoadtestFlags {
  duration: string;
  warmup?: string;
  connections?: number;
  rate?: number;
  cache?: boolean;
  allowRemote?: boolean;
  wsClients?: number;
  /** Same as wsClients. */
  clients?: number;
  daemonPid?: number;
  stocksPerClient?: number;
  market?: 'KOSPI' | 'KOSDAQ';
  out?: string;
  cleanup?: boolean;
}

/** Who the run acts as. */
export type LoadtestAccounts = Pick<LoadtestOptions, 'token' | 'adminToken' | 'admin'>;

/** The options of the run from the flags and the accounts. */
export function loadtestOptions(session: Session, scenarios: string[], flags: LoadtestFlags, accounts: LoadtestAccounts): LoadtestOptions {
  const wsClients = flags.wsClients ?? flags.clients;
  // --rate alone with WebSocket scenarios is their per-client message rate (REST runs keep it as requests/s).
  const wsOnly = scenarios.length > 0 && scenarios.every((n) => n.startsWith('ws-'));
  const daemonPid = flags.daemonPid ?? localDaemonPid(session);
  const ws = {
    ...(wsClients !== undefined ? { connections: wsClients } : {}),
    ...(wsOnly && flags.rate !== undefined ? { ratePerClient: flags.rate } : {}),
    ...(daemonPid !== undefined ? { daemonPid } : {}),
    ...(flags.stocksPerClient !== undefined ? { perConnection: flags.stocksPerClient } : {}),
    ...(flags.market !== undefined ? { market: flags.market } : {}),
  };
  return {
    url: session.baseUrl,
    scenarios: scenarios.length === 0 || scenarios.includes('all') ? 'all' : (scenarios as Exclude<LoadtestOptions['scenarios'], 'all' | undefined>),
    duration: parseDuration(flags.duration),
    ...(flags.warmup !== undefined ? { warmup: parseDuration(flags.warmup) } : {}),
    ...(flags.connections !== undefined ? { connections: flags.connections } : {}),
    ...(flags.rate !== undefined && !wsOnly ? { rate: flags.rate } : {}),
    cache: flags.cache === true,
    allowRemote: flags.allowRemote === true,
    ...accounts,
    ...(Object.keys(ws).length > 0 ? { ws } : {}),
  };
}

/** The pid of the daemon `daemon start` recorded when it is alive and the session's target. */
function localDaemonPid(session: Session): number | undefined {
  const pid = readPid(session.paths);
  if (pid === undefined || !isDaemonAlive(pid)) return undefined;
  return readDaemonRecord(session.paths)?.url === session.baseUrl ? pid : undefined;
}

/** True when the live view is drawn: stdout is a terminal without --json, and stderr (where it is drawn) is one too. */
export function useLiveView(session: Session): boolean {
  return session.out.mode === 'tty' && session.io.stderr.isTTY === true;
}

async function progressSink(session: Session): Promise<LoadtestProgressSink> {
  if (useLiveView(session)) return session.views.loadtestProgress(session.io.stderr, session.out.color);
  return createLoadtestLineSink(session.io.stderr);
}

/** Run the scenarios and print the report; resolves with the exit code (0 pass, 1 fail, 2 aborted). */
export async function runLoadtestCommand(session: Session, scenarios: string[], flags: LoadtestFlags): Promise<number> {
  checkTarget(session.baseUrl, flags.allowRemote === true);
  if (flags.cleanup) {
    for (const line of await cleanupBench(session)) session.out.info(line);
    return 0;
  }
  const options = loadtestOptions(session, scenarios, flags, await benchAccounts(session));
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
