/**
 * GET /metrics (Prometheus text). Not public by default (README "Threat model"): it shows
 * route names, traffic and queue depths. A scraper sends `Authorization: Bearer <token>`
 * with the configured `metrics_token` or an admin's access token; `metrics_public: true`
 * opens it to anyone (a scraper on a trusted network without credentials).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { ApiBuilder } from '../api.js';
import { bearerToken, requireAuth, type AuthGuardDeps } from '../middleware/auth.js';

/** Who may read /metrics (config `metrics_public`, `metrics_token`). */
export interface MetricsAccess {
  public: boolean;
  /** A static scrape token (at least 32 characters); absent: only admins' access tokens. */
  token?: string;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The guard: open when public, else the scrape token or an admin's access token. */
export function metricsGuard(access: MetricsAccess, auth: AuthGuardDeps): RequestHandler {
  const admin = requireAuth(auth, 'admin');
  const expected = access.token === undefined ? undefined : digest(access.token);
  return (req, res, next) => {
    if (access.public) return next();
    const given = bearerToken(req);
    // Digests compare in constant time whatever the lengths.
    if (expected && given !== undefined && timingSafeEqual(digest(given), expected)) return next();
    return admin(req, res, next);
  };
}

/** Register GET /metrics on the root router. */
export function registerMetricsRoute(root: ApiBuilder, deps: { registry: Registry; access: MetricsAccess; auth: AuthGuardDeps }): void {
  root.route(
    {
      method: 'get', path: '/metrics', summary: 'Prometheus metrics', tags: ['health'], access: 'public', security: 'bearer', raw: true, rateLimitExempt: true, contentType: 'text/plain', errors: [401, 403],
      description:
        'Needs `Authorization: Bearer <token>`: the configured `metrics_token` or an admin access token (401 without, 403 for a non-admin), ' +
        'unless the daemon runs with `metrics_public: true`.',
    },
    metricsGuard(deps.access, deps.auth),
    async (_req, res) => {
      res.type(deps.registry.contentType).send(await deps.registry.metrics());
    },
  );
}
