/**
 * From counter states to the answer: which limit the headers
 * describe, the header values (X-RateLimit-* and the IETF RateLimit-Policy / RateLimit
 * fields of draft-ietf-httpapi-ratelimit-headers), and on rejection the 429 body and
 * Retry-After. Pure.
 */
import { tierName, type CheckSpec, type Identity } from './policy.js';
import type { CounterState, WindowResult } from './store.js';

/** The spec's 429 body. */
export interface RateLimitBody {
  success: false;
  message: string;
  detail: string;
}

/** What the middleware should do and send. */
export interface Verdict {
  allowed: boolean;
  headers: Record<string, string>;
  /** The limit that rejected the request (absent when allowed). */
  rejectedBy?: CheckSpec;
  body?: RateLimitBody;
}

/** The spec says X-RateLimit-Reset is always 3600. */
const SPEC_RESET_S = 3600;

const remaining = (check: CheckSpec, state: CounterState) => Math.max(0, check.limit - state.count);
const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** Index of the check with the fewest requests remaining; the earlier check wins ties (endpoint first). */
export function fewestRemaining(checks: readonly CheckSpec[], states: readonly CounterState[]): number {
  let best = 0;
  for (let i = 1; i < checks.length; i++) {
    if (remaining(checks[i]!, states[i]!) < remaining(checks[best]!, states[best]!)) best = i;
  }
  return best;
}

/**
 * Among the exceeded checks, the one whose limit was reached first: earliest `filledAtMs`;
 * on a tie the one that frees later (larger `retryMs`), then the earlier check. A check is
 * exceeded when a request of `weight` does not fit.
 */
export function reachedFirst(checks: readonly CheckSpec[], states: readonly CounterState[], weight = 1): number {
  let best = -1;
  for (let i = 0; i < checks.length; i++) {
    const s = states[i]!;
    if (s.count + weight <= checks[i]!.limit) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const b = states[best]!;
    if (s.filledAtMs < b.filledAtMs || (s.filledAtMs === b.filledAtMs && s.retryMs > b.retryMs)) best = i;
  }
  return best;
}

/** The spec's 429 body for a limit. */
export function rejectionBody(check: CheckSpec, identity: Identity): RateLimitBody {
  if (check.kind === 'endpoint') {
    return { success: false, message: 'Endpoint rate limit exceeded', detail: `Maximum ${check.limit} requests per hour allowed for ${check.endpointPath}` };
  }
  const per = check.kind === 'tier_day' ? 'day' : 'hour';
  return { success: false, message: 'Rate limit exceeded', detail: `Maximum ${check.limit} requests per ${per} allowed for ${tierName(identity)} tier` };
}

/** `RateLimit-Policy`: every policy that applies, e.g. `"free-hourly";q=100;w=3600`. */
export function policyHeader(checks: readonly CheckSpec[]): string {
  return checks.map((c) => `${sfString(c.name)};q=${c.limit};w=${c.windowS}`).join(', ');
}

function sfString(s: string): string {
  return `"${s.replace(/[\\"]/g, '\\$&')}"`;
}

function baseHeaders(checks: readonly CheckSpec[], states: readonly CounterState[], shown: number, remainingShown: number): Record<string, string> {
  const check = checks[shown]!;
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(check.limit),
    'X-RateLimit-Remaining': String(remainingShown),
    'X-RateLimit-Reset': String(SPEC_RESET_S),
    'RateLimit-Policy': policyHeader(checks),
    RateLimit: checks.map((c, i) => `${sfString(c.name)};r=${remaining(c, states[i]!)};t=${seconds(states[i]!.resetMs)}`).join(', '),
  };
  if (check.kind === 'endpoint' && check.endpointPath) headers['X-RateLimit-Endpoint'] = check.endpointPath;
  return headers;
}

/**
 * Turn a store result into a verdict. A rejection answers for the limit reached first,
 * with Retry-After = the longest wait among the exceeded limits (both must pass). `weight`:
 * what the request counted as (see RateLimitStore.hit).
 */
export function decide(checks: readonly CheckSpec[], result: WindowResult, identity: Identity, weight = 1): Verdict {
  const states = result.counters;
  if (result.admitted) {
    const shown = fewestRemaining(checks, states);
    return { allowed: true, headers: baseHeaders(checks, states, shown, remaining(checks[shown]!, states[shown]!)) };
  }
  const shown = reachedFirst(checks, states, weight);
  if (shown < 0) {
    // Unreachable unless the store lies; never reject without a reason to show.
    return { allowed: true, headers: baseHeaders(checks, states, fewestRemaining(checks, states), 0) };
  }
  const waitMs = Math.max(...states.filter((s, i) => s.count + weight > checks[i]!.limit).map((s) => s.retryMs));
  const headers = baseHeaders(checks, states, shown, 0);
  headers['Retry-After'] = String(Math.max(1, seconds(waitMs)));
  return { allowed: false, headers, rejectedBy: checks[shown]!, body: rejectionBody(checks[shown]!, identity) };
}

/** Headers when the request is free (served from cache): current Remaining, nothing counted. */
export function peekHeaders(checks: readonly CheckSpec[], result: WindowResult): Record<string, string> {
  const shown = fewestRemaining(checks, result.counters);
  return baseHeaders(checks, result.counters, shown, remaining(checks[shown]!, result.counters[shown]!));
}

/** Headers when the store could not be asked (fail open): only what is known without it. */
export function staticHeaders(checks: readonly CheckSpec[]): Record<string, string> {
  let shown = 0;
  checks.forEach((c, i) => {
    if (c.limit < checks[shown]!.limit) shown = i;
  });
  const check = checks[shown]!;
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(check.limit),
    'X-RateLimit-Reset': String(SPEC_RESET_S),
    'RateLimit-Policy': policyHeader(checks),
  };
  if (check.kind === 'endpoint' && check.endpointPath) headers['X-RateLimit-Endpoint'] = check.endpointPath;
  return headers;
}
