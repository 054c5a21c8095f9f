/** Helpers of the WebSocket scenarios: abortable waits, the tick source, the socket URL, descriptor room. */
import { ensureFdLimit } from '../fd-limit.js';
import { wsBase } from '../guard.js';
import type { ScenarioContext } from '../types.js';
import { feedTickSource, ingestTickSource, type TickSource } from '../ws/tick-source.js';

/** Descriptors kept free for everything but the clients. */
export const FD_HEADROOM = 256;

/** Error of an aborted wait. */
export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/** Resolve after `ms`, or reject with AbortedError when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return untilAborted(new Promise((r) => setTimeout(r, ms).unref()), signal);
}

/** `promise`, or a rejection with AbortedError when `signal` aborts first. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** The tick source of a run: the injected one, else `ingest` when an admin is available, else the daemon's feed. */
export async function chooseTickSource(ctx: ScenarioContext, userToken: string | null): Promise<{ source: TickSource; note?: string }> {
  if (ctx.tickSource) return { source: ctx.tickSource };
  const wanted = ctx.options.ws.tickSource;
  const admin = wanted === 'feed' ? null : await ctx.session.adminToken();
  if (admin && userToken) return { source: ingestTickSource(ctx.session.api, admin, userToken) };
  const note = wanted === 'ingest' ? 'tick source ingest needs an admin and a user token: fell back to the daemon feed' : undefined;
  return { source: feedTickSource(), note: note ?? 'updates come from the server’s own feed: offered load unknown (give an admin to drive ticks through the ingest API)' };
}

/** The WebSocket URL with optional query parameters. */
export function socketUrl(ctx: ScenarioContext, query: Record<string, string | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const text = params.toString();
  return `${wsBase(ctx.url)}/v1/ws${text ? `?${text}` : ''}`;
}

/** How many of `wanted` clients fit the descriptor limit (raising it when possible), with a note when capped. */
export async function clientsThatFit(wanted: number): Promise<{ count: number; notes: string[] }> {
  const fd = await ensureFdLimit(wanted + FD_HEADROOM);
  const notes = fd.note ? [fd.note] : [];
  if (fd.enough || !fd.limits) return { count: wanted, notes };
  const count = Math.max(1, fd.limits.soft - FD_HEADROOM);
  notes.push(`clients reduced from ${wanted} to ${count} to stay inside the open-file limit`);
  return { count, notes };
}
