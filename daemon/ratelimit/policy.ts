/**
 * Which limits apply to a request (spec "Limits"): exemptions, the endpoint-limit table
 * matched against route templates, the caller's tier limits and the counters to check.
 * Pure: no express, no Redis. The middleware feeds it method, path and identity.
 */
import type { Tier } from '../auth/tokens.js';
import { addressTag, userTag } from '../infra/key-tags.js';

/** A rolling window counted in buckets (see README.md for the precision this gives). */
export interface WindowShape {
  /** Window length in seconds. */
  windowS: number;
  /** Bucket width in seconds; the window keeps windowS / bucketS + 1 buckets. */
  bucketS: number;
}

/** The two windows in use: one hour in minute buckets, one day in hour buckets. */
export const WINDOWS = {
  hour: { windowS: 3600, bucketS: 60 },
  day: { windowS: 86_400, bucketS: 3600 },
} as const satisfies Record<string, WindowShape>;

/** Rate-limit settings as the config section holds them. */
export interface RateLimitSettings {
  anonymous_per_hour: number;
  tiers: Record<Tier, { per_hour: number; per_day: number }>;
  /** 'METHOD /template' → requests per hour, e.g. 'GET /stocks/{code}': 200. */
  endpoints: Record<string, number>;
}

/** Templates that share another endpoint's counter (spec "Endpoint reference": /screening is /screen). */
export const ENDPOINT_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'POST /screen': ['/screening'],
};

/** One endpoint limit, compiled for matching. */
export interface EndpointRule {
  /** The config key, e.g. 'POST /screen' (also the policy name in RateLimit headers). */
  name: string;
  /** Safe counter id, e.g. 'post_screen'. */
  id: string;
  method: string;
  /** The path template this pattern matches (an alias keeps its own template). */
  template: string;
  pattern: RegExp;
  limit: number;
}

/** The endpoint a request hit, with the path shown in X-RateLimit-Endpoint. */
export interface EndpointMatch {
  rule: EndpointRule;
  /** Canonical prefix + template, e.g. '/api/v1/screen' or '/v1/stocks/{code}'. */
  path: string;
}

/** How a request relates to the limiter. */
export type RequestClass = { exempt: true } | { exempt: false; endpoint?: EndpointMatch };

/** Exempt routes (spec "Rate-limit rules" 5), matched on the path without the API prefix. */
const EXEMPT: readonly { methods?: readonly string[]; pattern: RegExp }[] = [
  { pattern: /^\/health(?:\/(?:db|redis))?\/?$/i },
  { pattern: /^\/docs(?:\/.*)?$/i },
  { pattern: /^\/redoc(?:\/.*)?$/i },
  { pattern: /^\/openapi\.json$/i },
  { pattern: /^\/metrics\/?$/i },
  { methods: ['GET', 'HEAD'], pattern: /^\/screen\/templates\/?$/i },
  // Monitoring, like /metrics: `stockscreen ws-stats --watch` polls it every second.
  { methods: ['GET', 'HEAD'], pattern: /^\/ws\/stats\/?$/i },
];

const CONFIG_KEY = /^(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)$/i;

/** Express-like matching: case-insensitive, optional trailing slash, `{p}` or `:p` = one segment. */
function templatePattern(template: string): RegExp {
  const body = template
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (/^\{[^}]+\}$|^:\w+$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`, 'i');
}

/**
 * Compile the configured endpoint limits (plus aliases) into match rules.
 * @throws Error when a key is not of the form 'METHOD /path'
 */
export function compileEndpointRules(
  endpoints: Record<string, number>,
  aliases: Readonly<Record<string, readonly string[]>> = ENDPOINT_ALIASES,
): EndpointRule[] {
  const rules: EndpointRule[] = [];
  for (const [name, limit] of Object.entries(endpoints)) {
    const m = CONFIG_KEY.exec(name.trim());
    if (!m) throw new Error(`rate_limit.endpoints: "${name}" must look like "POST /screen" or "GET /stocks/{code}"`);
    const method = m[1]!.toUpperCase();
    const id = `${method}${m[2]!}`.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/_+$/, '');
    for (const template of [m[2]!, ...(aliases[name] ?? [])]) {
      rules.push({ name, id, method, template, pattern: templatePattern(template), limit });
    }
  }
  return rules;
}

/** Split '/API/V1/screen' into the canonical prefix and the rest (express mounts match case-insensitively). */
export function splitPrefix(path: string, prefixes: readonly string[]): { prefix: string; rest: string } {
  const lower = path.toLowerCase();
  for (const prefix of prefixes) {
    if (lower === prefix || lower.startsWith(prefix + '/')) return { prefix, rest: path.slice(prefix.length) || '/' };
  }
  return { prefix: '', rest: path };
}

/**
 * Classify a request by method and path (query string excluded) without consulting the
 * router, so exemptions hold even for routes registered later.
 */
export function classifyRequest(method: string, path: string, rules: readonly EndpointRule[], prefixes: readonly string[]): RequestClass {
  const verb = method.toUpperCase();
  const { prefix, rest } = splitPrefix(path, prefixes);
  if (EXEMPT.some((e) => (!e.methods || e.methods.includes(verb)) && e.pattern.test(rest))) return { exempt: true };
  // Express answers HEAD with the GET handler, so HEAD counts as GET.
  const asMethod = verb === 'HEAD' ? 'GET' : verb;
  if (!prefix) return { exempt: false };
  const rule = rules.find((r) => r.method === asMethod && r.pattern.test(rest));
  return rule ? { exempt: false, endpoint: { rule, path: prefix + rule.template } } : { exempt: false };
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
    checks.push({ kind: 'endpoint', name: endpoint.rule.name, key: key('rl', subject, 'e', endpoint.rule.id), limit: endpoint.rule.limit, endpointPath: endpoint.path, ...WINDOWS.hour });
  }
  checks.push({ kind: 'tier_hour', name: `${tier}-hourly`, key: key('rl', subject, 'h'), limit: perHour, ...WINDOWS.hour });
  if (perDay !== null) checks.push({ kind: 'tier_day', name: `${tier}-daily`, key: key('rl', subject, 'd'), limit: perDay, ...WINDOWS.day });
  return checks;
}
