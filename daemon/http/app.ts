/**
 * The express application: request id, drain guard, metrics, root routes (health, docs,
 * metrics), and one versioned router mounted at both `/api/v1` and `/v1` (the spec
 * serves both prefixes). Bodies are parsed per route, after authentication (see api.ts), never here.
 */
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import './types.js';
import type { Metrics } from '../infra/metrics.js';
import { buildOpenApiDocument, createApiBuilder, type ApiBuilder, type RouteLimiter, type RouteSpec } from './api.js';
import { methodNotAllowed, optionsResponder } from './method-table.js';
import { API_PREFIXES } from './prefixes.js';
import { errorBody } from './envelope.js';
import type { AuthGuardDeps } from './middleware/auth.js';
import { errorHandler, notFoundHandler } from './middleware/errors.js';
import { requestId } from './middleware/request-id.js';
import { securityHeaders } from './middleware/security-headers.js';
import { registerMetricsRoute, type MetricsAccess } from './routes/metrics.js';
import { registerDocsRoutes } from './routes/docs.js';
import { registerHealthRoutes, type HealthDeps } from './routes/health.js';

export { API_PREFIXES };

/** Adds a feature's routes to the versioned router. */
export type RouteRegistrar = (api: ApiBuilder) => void;

/** Collaborators of the HTTP app. */
export interface AppDeps extends AuthGuardDeps {
  logger: Logger;
  metrics: Metrics;
  health: HealthDeps;
  /** The largest body any route accepts (`body_limit`: '1mb', '512kb', or bytes). */
  bodyLimit: string | number;
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
  /** The rate limiter's per-route step builder (absent: no limits). */
  limiter?: RouteLimiter;
  /** Who may read /metrics (config metrics_public, metrics_token). */
  metricsAccess?: MetricsAccess;
  /** OpenAPI tag descriptions (markdown), e.g. the WebSocket protocol under `websocket`. */
  docTags?: readonly { name: string; description: string }[];
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

/** '1mb' / '512kb' / '100b' or a number of bytes → bytes. */
export function parseBytes(limit: string | number): number {
  if (typeof limit === 'number') return limit;
  const m = /^(\d+)(b|kb|mb)?$/i.exec(limit.trim());
  if (!m) throw new Error(`body limit "${limit}" must look like 1mb, 512kb or 100b`);
  const unit = (m[2] ?? 'b').toLowerCase();
  return Number(m[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
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
  // No ETag: responses are per request (meta.timestamp, request_id), so a hash of each body buys nothing.
  app.set('etag', false);
  app.use(securityHeaders());
  app.use(requestId(), drainGuard(deps.isDraining), recordMetrics(deps.metrics));

  const maxBodyBytes = parseBytes(deps.bodyLimit);
  const root = createApiBuilder('', { tokens: deps.tokens, users: deps.users, maxBodyBytes });
  const api = createApiBuilder(API_PREFIXES[0], { tokens: deps.tokens, users: deps.users, maxBodyBytes, limiter: deps.limiter });
  let document: unknown;
  const openapi = () =>
    (document ??= buildOpenApiDocument([...root.routes, ...api.routes], {
      version: deps.version,
      tags: deps.docTags,
      description:
        'REST interface of stockscreend. Every path under /api/v1 is also served under /v1 (same handlers, same rate-limit counters). ' +
        'Success bodies use the envelope {status:"success", data, meta:{timestamp, request_id}}; errors use {status:"error", error:{code, message, details}, meta}.',
    }));

  registerHealthRoutes(root, deps.health);
  registerDocsRoutes(app, root, openapi);
  registerMetricsRoute(root, { registry: deps.metrics.registry, access: deps.metricsAccess ?? { public: false }, auth: deps });
  for (const register of deps.registrars) register(api);

  // The API first: its requests never walk the root routes. The 405 answers come last, only
  // for requests no route took.
  for (const prefix of API_PREFIXES) app.use(prefix, optionsResponder(api.methods), api.router);
  app.use(optionsResponder(root.methods), root.router);
  for (const prefix of API_PREFIXES) app.use(prefix, methodNotAllowed(api.methods));
  app.use(methodNotAllowed(root.methods));
  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return { app, routes: [...root.routes, ...api.routes], api, root, openapi };
}
