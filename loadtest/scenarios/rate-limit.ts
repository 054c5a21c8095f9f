/**
 * `rate-limit`: correctness under load. A fresh user (given a custom hourly limit L by the
 * admin when one is available, else its tier's) spends one probe request to learn the
 * remaining allowance R, then fires R + extra requests at once: exactly R must be admitted
 * and every other one answered 429 with Retry-After.
 */
import type { ApiResponse } from '../api.js';
import { correctness, makeRow } from '../targets.js';
import type { ReportRow, Scenario, ScenarioContext } from '../types.js';

const PATH = '/api/v1/users/me';

interface Counts {
  admitted: number;
  rejected: number;
  other: Record<string, number>;
  retryAfter: number;
}

function count(answers: ApiResponse[]): Counts {
  const c: Counts = { admitted: 0, rejected: 0, other: {}, retryAfter: 0 };
  for (const a of answers) {
    if (a.status >= 200 && a.status < 300) c.admitted++;
    else if (a.status === 429) {
      c.rejected++;
      if (/^\d+$/.test(a.headers.get('retry-after') ?? '')) c.retryAfter++;
    } else c.other[a.status] = (c.other[a.status] ?? 0) + 1;
  }
  return c;
}

async function fire(ctx: ScenarioContext, token: string, n: number): Promise<ApiResponse[]> {
  const timeoutMs = ctx.options.timeout * 1000;
  const one = () =>
    ctx.session.api.call(PATH, { token, signal: ctx.signal, timeoutMs }).catch((err: Error): ApiResponse => ({ status: 0, headers: new Headers(), body: err.message }));
  return Promise.all(Array.from({ length: n }, one));
}

/** The rate-limit correctness scenario. */
export const rateLimit: Scenario = {
  name: 'rate-limit',
  description: 'N parallel requests from a fresh user: exactly the remaining allowance is admitted, the rest get 429',
  async run(ctx) {
    const s = 'rate-limit';
    const admin = await ctx.session.adminToken();
    const limit = ctx.options.rateLimit.limit;
    const user = await ctx.session.freshUser(admin ? { tier: 'enterprise', rate_limit_per_hour: limit } : undefined);
    ctx.progress({ type: 'phase', phase: 'probe' });
    const probe = await ctx.session.api.call(PATH, { token: user.token, signal: ctx.signal });
    const headerLimit = Number(probe.headers.get('x-ratelimit-limit') ?? NaN);
    const remaining = Number(probe.headers.get('x-ratelimit-remaining') ?? NaN);
    if (!Number.isFinite(remaining)) {
      const note = 'no X-RateLimit-Remaining on an authenticated request: rate limiting is off or not in front of the API';
      return [makeRow(s, 'admitted of parallel requests', null, '', correctness('==', limit), { note })];
    }
    const n = remaining + ctx.options.rateLimit.extra;
    ctx.settings({ custom_limit: admin ? limit : null, remaining_before: remaining, parallel_requests: n });
    ctx.progress({ type: 'phase', phase: 'burst', detail: `${n} requests at once` });
    const c = count(await fire(ctx, user.token, n));
    const otherText = Object.entries(c.other).map(([k, v]) => `${k === '0' ? 'network error' : k} × ${v}`).join(', ');
    const rows: ReportRow[] = [
      makeRow(s, 'parallel requests', n, ''),
      makeRow(s, 'admitted (2xx)', c.admitted, '', correctness('==', remaining), {
        note: c.admitted > remaining ? 'more admitted than the allowance: concurrent requests slip past the limit' : undefined,
      }),
      makeRow(s, 'rejected (429)', c.rejected, '', correctness('==', n - remaining)),
      makeRow(s, 'other answers', Object.values(c.other).reduce((a, b) => a + b, 0), '', correctness('==', 0), { note: otherText || undefined }),
      makeRow(s, '429s with Retry-After', c.rejected === 0 ? null : (c.retryAfter / c.rejected) * 100, '%', correctness('==', 100), {
        notEvaluated: c.rejected === 0 ? 'no 429 to inspect' : undefined,
      }),
    ];
    if (admin) rows.unshift(makeRow(s, 'X-RateLimit-Limit (custom limit set)', Number.isFinite(headerLimit) ? headerLimit : null, '', correctness('==', limit)));
    return rows;
  },
};
