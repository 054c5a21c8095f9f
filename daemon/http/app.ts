/**
 * The express application: request id, drain guard, metrics, body limit, root routes
 * (health, docs, metrics), and one versioned router mounted at both `/api/v1` and `/v1`
 * (spec "Path prefix").
 */
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import './types.js';
import type { Metrics } from '../infra/metrics.js';
import { buildOpenApiDocument, createApiBuilder, type ApiBuilder, type RouteSpec } from './api.js';
import { errorBody } from './envelope.js';
import type { AuthGuardDeps } from './middleware/auth.js';
import { errorHandler, notFoundHandler } from './middleware/errors.js';
import { requestId } from './middleware/request-id.js';
import { securityHeaders } from './middleware/security-headers.js';
import { registerMetricsRoute, type MetricsAccess } from './routes/metrics.js';
import { registerDocsRoutes } from './routes/docs.js';
import { registerHealthRoutes, type HealthDeps } from './routes/health.js';

/** The REST prefixes; both serve the same router. */
export const API_PREFIXES = ['/api/v1', '/v1'] as const;

/** Adds a feature's routes to the versioned router. */
export type RouteRegistrar = (api: ApiBuilder) => void;

/** Collaborators of the HTTP app. */
export interface AppDeps extends AuthGuardDeps {
  logger: Logger;
  metrics: Metrics;
  health: HealthDeps;
  bodyLimit: string;
  /**
   * Proxies trusted for X-Forwarded-For: false, a hop count, or their addresses/CIDRs.
   * `true` is taken as one hop: trusting every hop would let the client pick its address.
   */
  trustProxy: boolean | number | readonly string[];
  version: string;
  /** True once shutdown has begun: new requests get 503. */
  isDraining(): boolean;
  /** Feature route modules for the versioned router. */
  registrars: RouteRegistrar[];
  /** Who may read /metrics (config metrics_public, metrics_token). */
  metricsAccess?: MetricsAccess;
  /** Middleware run before every versioned route (rate limiting plugs in here). */
  beforeApi?: RequestHandler[];
}

/** The built app plus the route list (for OpenAPI and its completeness test). */
export interface BuiltApp {
  app: Express;
  routes: readonly RouteSpec[];
  /** The versioned router's builder (its express stack is the source of truth for the route list). */
  api: ApiBuilder;
  root: ApiBuilder;
  openapi(): unknown;
}

function drainGuard(isDraining: () => boolean): RequestHandler {
  return (req, res, next) => {
    if (!isDraining()) return next();
    res.setHeader('Connection', 'close');
    res.status(503).json(errorBody(req, 'SERVICE_UNAVAILABLE', 'Server is shutting down'));
  };
}

function recordMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      // Route templates keep label cardinality bounded (never the raw path).
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      end(labels);
      metrics.httpRequests.inc(labels);
    });
    next();
  };
}

function trustSetting(trust: AppDeps['trustProxy']): false | number | string[] {
  if (trust === true) return 1;
  if (trust === false || typeof trust === 'number') return trust;
  return [...trust];
}

/** Build the express app (does not listen). */
export function buildApp(deps: AppDeps): BuiltApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustSetting(deps.trustProxy));
  app.use(securityHeaders());
  app.use(requestId(), drainGuard(deps.isDraining), recordMetrics(deps.metrics));
  app.use(express.json({ limit: deps.bodyLimit, type: ['application/json', 'application/*+json'] }));

  const root = createApiBuilder('', deps);
  const api = createApiBuilder(API_PREFIXES[0], deps);
  let document: unknown;
  const openapi = () =>
    (document ??= buildOpenApiDocument([...root.routes, ...api.routes], {
      version: deps.version,
      description:
        'REST interface of stockscreend. Every path under /api/v1 is also served under /v1 (same handlers, same rate-limit counters). ' +
        'Success bodies use the envelope {status:"success", data, meta:{timestamp, request_id}}; errors use {status:"error", error:{code, message, details}, meta}.',
    }));

  registerHealthRoutes(root, deps.health);
  registerDocsRoutes(app, root, openapi);
  registerMetricsRoute(root, { registry: deps.metrics.registry, access: deps.metricsAccess ?? { public: false }, auth: deps });
  for (const register of deps.registrars) register(api);

  app.use(root.options, root.router);
  for (const prefix of API_PREFIXES) app.use(prefix, ...(deps.beforeApi ?? []), api.options, api.router);
  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return { app, routes: [...root.routes, ...api.routes], api, root, openapi };
}
