/**
 * Which limits apply to a request: the endpoint-limit table looked up by a
 * route's declared template (the route table says which routes are exempt), the caller's tier
 * limits and the counters to check. Pure: no express, no Redis.
 */
import type { Tier } from '../kernel/roles.js';
import { addressTag, userTag } from '../infra/key-tags.js';

/** A rolling window; `bucketS` 0 is an exact log of request times (see window-script.ts). */
export interface WindowShape {
  /** Window length in seconds. */
  windowS: number;
  /** Bucket width in seconds (the window keeps windowS / bucketS buckets), or 0 for an exact log. */
  bucketS: number;
}

/**
 * The two windows in use: the hour as an exact log (a request counts for exactly 3600 s), the
 * day in hour buckets (a request counts for 23–24 h: never longer than the day).
 */
export const WINDOWS = {
  hour: { windowS: 3600, bucketS: 0 },
  day: { windowS: 86_400, bucketS: 3600 },
} as const satisfies Record<string, WindowShape>;

/** Rate-limit settings as the config section holds them. */
export interface RateLimitSettings {
  anonymous_per_hour: number;
  tiers: Record<Tier, { per_hour: number; per_day: number }>;
  /** 'METHOD /template' → requests per hour, e.g. 'GET /stocks/{code}': 200. */
  endpoints: Record<string, number>;
}

/** One endpoint limit. */
export interface EndpointRule {
  /** The config key, e.g. 'POST /screen' (also the policy name in RateLimit headers). */
  name: string;
  /** Safe counter id, e.g. 'post_screen'. */
  id: string;
  limit: number;
}

/** The endpoint a request hit, with the path shown in X-RateLimit-Endpoint. */
export interface EndpointMatch {
  rule: EndpointRule;
  /** Canonical prefix + template, e.g. '/api/v1/screen' or '/v1/stocks/{code}'. */
  path: string;
}

const CONFIG_KEY = /^(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)$/i;

/**
 * The lookup form of 'METHOD /template': method upper-case, path lower-case without a trailing
 * slash, every parameter (`{code}` or `:code`) as `{}` — so a config key and a route's
 * declared template meet whatever their parameters are called.
 * @throws Error when `key` is not of the form 'METHOD /path'
 */
export function endpointKey(key: string): string {
  const m = CONFIG_KEY.exec(key.trim());
  if (!m) throw new Error(`rate_limit.endpoints: "${key}" must look like "POST /screen" or "GET /stocks/{code}"`);
  const path = m[2]!
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (/^\{[^}]+\}$|^:\w+$/.test(seg) ? '{}' : seg.toLowerCase()))
    .join('/');
  return `${m[1]!.toUpperCase()} ${path || '/'}`;
}

/**
 * Compile the configured endpoint limits into rules keyed by `endpointKey`.
 * @throws Error when a key is malformed
 */
export function compileEndpointRules(endpoints: Record<string, number>): Map<string, EndpointRule> {
  const rules = new Map<string, EndpointRule>();
  for (const [name, limit] of Object.entries(endpoints)) {
    const key = endpointKey(name);
    const id = key.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/_+$/, '');
    rules.set(key, { name, id, limit });
  }
  return rules;
}

/** The canonical API prefix of a router mount as the client typed it ('/API/V1' → '/api/v1'). */
export function canonicalPrefix(baseUrl: string, prefixes: readonly string[]): string {
  const lower = baseUrl.toLowerCase();
  return prefixes.find((p) => p === lower) ?? baseUrl;
}

/** Who is counted: a user (valid token) or a client address. */
export type Identity =
  | { kind: 'user'; id: string; tier: Tier; customPerHour: number | null }
  | { kind: 'address'; address: string };

/** The tier a caller is limited as; anonymous callers form their own class. */
export function tierName(identity: Identity): Tier | 'anonymous' {
  return identity.kind === 'user' ? identity.tier : 'anonymous';
}

/**
 * Hourly and daily tier limits. Enterprise uses the account's custom hourly limit when an
 * admin set one (daily = 24 × hourly, the ratio of every other tier), else the config's.
 * Custom limits on other tiers are ignored. Anonymous callers have no daily limit.
 */
export function tierLimits(settings: RateLimitSettings, identity: Identity): { perHour: number; perDay: number | null } {
  if (identity.kind === 'address') return { perHour: settings.anonymous_per_hour, perDay: null };
  const tier = settings.tiers[identity.tier];
  if (identity.tier === 'enterprise' && identity.customPerHour !== null && identity.customPerHour > 0) {
    return { perHour: identity.customPerHour, perDay: identity.customPerHour * 24 };
  }
  return { perHour: tier.per_hour, perDay: tier.per_day };
}

/**
 * The key part naming a client address. IPv4-mapped IPv6 is unwrapped; other IPv6
 * addresses are keyed by their /64 (one subscriber's network), so rotating addresses
 * inside it does not multiply the anonymous quota.
 */
export function addressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  return ipv6Prefix64(ip.split('%')[0]!);
}

function ipv6Prefix64(ip: string): string {
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':') + '::/64';
}

/** One counter a request must pass. */
export interface CheckSpec extends WindowShape {
  kind: 'endpoint' | 'tier_hour' | 'tier_day';
  /** Policy name in RateLimit-Policy / RateLimit (an sf-string). */
  name: string;
  key: string;
  limit: number;
  /** For endpoint checks: the path shown in X-RateLimit-Endpoint and in the 429 detail. */
  endpointPath?: string;
}

/**
 * The counters to check, endpoint first (it wins ties when choosing which limit the
 * headers describe). Keys share a `{subject}` hash tag so one script may touch them all.
 */
export function planChecks(
  settings: RateLimitSettings,
  identity: Identity,
  endpoint: EndpointMatch | undefined,
  key: (...parts: string[]) => string,
): CheckSpec[] {
  const subject = identity.kind === 'user' ? userTag(identity.id) : addressTag(identity.address);
  const tier = tierName(identity);
  const { perHour, perDay } = tierLimits(settings, identity);
  const checks: CheckSpec[] = [];
  if (endpoint) {
    checks.push({ kind: 'endpoint', name: endpoint.rule.name, key: key('rl', subject, 'el', endpoint.rule.id), limit: endpoint.rule.limit, endpointPath: endpoint.path, ...WINDOWS.hour });
  }
  checks.push({ kind: 'tier_hour', name: `${tier}-hourly`, key: key('rl', subject, 'hl'), limit: perHour, ...WINDOWS.hour });
  if (perDay !== null) checks.push({ kind: 'tier_day', name: `${tier}-daily`, key: key('rl', subject, 'd24'), limit: perDay, ...WINDOWS.day });
  return checks;
}
