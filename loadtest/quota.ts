/**
 * Will the token's rate limit throttle a REST run? Before each REST scenario the run reads
 * the token's remaining tier quota (the `X-RateLimit-*` headers of one GET /users/me) and
 * compares it with the requests the scenario plans to send. A bench user lifted by an admin
 * has about 10⁹ left; a free or basic login (100 or 1,000 an hour) would turn most of the
 * run into 429s, so the scenario stops at once with a hint instead of wasting the run
 * (a throttled run would measure the rate limiter, not the daemon).
 */
import type { ApiClient } from './api.js';

/**
 * Requests per connection and second assumed for a closed-loop run when planning it: a low
 * figure for a loopback daemon (a screening request takes a few ms), so the plan errs on the
 * small side and only a quota that surely runs out is refused.
 */
export const CLOSED_LOOP_PLAN_PER_CONNECTION_S = 100;

/** What the run plans to send in one scenario (warm-up included). */
export interface RunPlan {
  connections: number;
  warmup: number;
  duration: number;
  /** Fixed rate (req/s); absent: closed loop. */
  rate?: number;
}

/** The token's account and remaining tier quota. */
export interface Quota {
  tier: string | null;
  role: string | null;
  /** `X-RateLimit-Limit` and `-Remaining` after the probe; null when the daemon sent none (limits off). */
  limit: number | null;
  remaining: number | null;
}

/** Requests a scenario plans: rate × seconds at a fixed rate, else connections × seconds × the planning figure. */
export function plannedRequests(plan: RunPlan): number {
  const seconds = plan.warmup + plan.duration;
  if (plan.rate) return Math.ceil(plan.rate * seconds);
  return Math.ceil(plan.connections * seconds * CLOSED_LOOP_PLAN_PER_CONNECTION_S);
}

function describePlan(plan: RunPlan, planned: number): string {
  const seconds = plan.warmup + plan.duration;
  const how = plan.rate
    ? `${plan.rate} req/s × ${seconds} s`
    : `${plan.connections} connection${plan.connections === 1 ? '' : 's'} × ${seconds} s × ~${CLOSED_LOOP_PLAN_PER_CONNECTION_S} req/s closed loop`;
  return `about ${planned.toLocaleString('en-US')} requests planned (${how})`;
}

/**
 * Why the quota would throttle the plan, or null when it would not (or cannot be known:
 * no rate-limit headers means the daemon does not limit).
 */
export function throttleProblem(quota: Quota, plan: RunPlan): string | null {
  if (quota.remaining === null) return null;
  const planned = plannedRequests(plan);
  if (quota.remaining >= planned) return null;
  const tier = quota.tier ? `the ${quota.tier} tier` : 'its tier';
  const limit = quota.limit === null ? '' : `, ${quota.limit.toLocaleString('en-US')} requests per window`;
  return (
    `the bench token's account would be rate-limited: ${tier}${limit}, ${quota.remaining.toLocaleString('en-US')} left, ` +
    `${describePlan(plan, planned)}. Have an admin exempt this account for the test (\`stockscreen admin users loadtest-grant <email> --for 2h\`), ` +
    'give an admin account so an exempt bench account is used (CLI: STOCKSCREEN_ADMIN_EMAIL and STOCKSCREEN_ADMIN_PASSWORD, or log in as an admin; API: the `admin` option), ' +
    'have an admin raise this account (`stockscreen admin users set-tier <email> enterprise`), or plan fewer requests (--duration, --connections, --rate)'
  );
}

const headerNumber = (headers: Headers, name: string): number | null => {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
};

/**
 * Probe the token's account and quota with one GET /api/v1/users/me (it counts one request).
 * Resolves null when the token is refused (the run itself will show the 401s).
 * @throws ApiCallError when the daemon cannot be reached
 */
export async function readQuota(api: ApiClient, token: string, signal?: AbortSignal): Promise<Quota | null> {
  const res = await api.call<{ data?: { tier?: string; role?: string } }>('/api/v1/users/me', { token, signal });
  if (res.status < 200 || res.status > 299) return null;
  return {
    tier: res.body?.data?.tier ?? null,
    role: res.body?.data?.role ?? null,
    limit: headerNumber(res.headers, 'x-ratelimit-limit'),
    remaining: headerNumber(res.headers, 'x-ratelimit-remaining'),
  };
}
