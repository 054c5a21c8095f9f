/**
 * One place that both mounts a route and describes it in OpenAPI, from the same zod
 * schemas that validate the request — so the document cannot drift from the router.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { requireAuth, type AuthGuardDeps } from './middleware/auth.js';
import { validate } from './middleware/validate.js';

/** Who may call a route. */
export type Access = 'public' | 'user' | 'admin';

/** A route's contract. `path` uses express syntax (`/stocks/:code`). */
export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  access: Access;
  body?: z.ZodType;
  query?: z.ZodObject;
  params?: z.ZodObject;
  /** Schema of `data` in the success envelope (or of the whole body when `raw`). */
  response?: z.ZodType;
  /** Success status (default 200; 204 has no body). */
  status?: 200 | 201 | 202 | 204;
  /** The body is not wrapped in the envelope (health, docs, CSV). */
  raw?: boolean;
  /** Content type of a raw success body (default application/json). */
  contentType?: string;
  /** Extra error statuses this route can answer besides the common ones. */
  errors?: readonly number[];
  /** Bodies of error statuses that do not use the error envelope (default: ErrorEnvelope; 429: RateLimitExceeded). */
  errorBodies?: Readonly<Partial<Record<number, { description: string; schema: z.ZodType }>>>;
  /** Exempt from rate limiting (spec "Rate-limit rules" 5). */
  rateLimitExempt?: boolean;
}

/** A router plus its OpenAPI registrations. */
export interface ApiBuilder {
  readonly router: Router;
  /**
   * Answers OPTIONS for every registered path with 204 and `Allow` (mount it before
   * `router`), instead of express's automatic `200 text/plain` answer.
   */
  readonly options: Router;
  readonly routes: RouteSpec[];
  route(spec: RouteSpec, ...handlers: RequestHandler[]): void;
}

/** The error envelope (spec "Errors"). */
export const errorEnvelope = z
  .object({
    status: z.literal('error'),
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }),
    meta: z.object({ timestamp: z.string(), request_id: z.string() }),
  })
  .meta({ id: 'ErrorEnvelope' });

const rateLimitBody = z
  .object({ success: z.literal(false), message: z.string(), detail: z.string() })
  .meta({ id: 'RateLimitExceeded' });

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request parameters (details lists each bad field)',
  401: 'Authentication required (missing, invalid, expired or revoked token)',
  403: 'Insufficient permissions',
  404: 'Resource not found',
  409: 'Conflict with an existing resource',
  413: 'Request body too large',
  429: 'Rate limit exceeded',
  500: 'Server error',
  503: 'Dependency unavailable',
};

/** Create a route builder mounted at `prefix` (used only for the OpenAPI paths). */
export function createApiBuilder(prefix: string, guard: AuthGuardDeps): ApiBuilder {
  const router = Router();
  const routes: RouteSpec[] = [];
  const { options, allow } = createOptionsRouter();
  return {
    router,
    options,
    routes,
    route(spec, ...handlers) {
      routes.push({ ...spec, path: prefix + spec.path });
      allow(spec.path, spec.method);
      const chain: RequestHandler[] = [];
      if (spec.access !== 'public') chain.push(requireAuth(guard, spec.access));
      if (spec.body || spec.query || spec.params) chain.push(validate(spec));
      router[spec.method](spec.path, ...chain, ...handlers);
    },
  };
}

/**
 * The OPTIONS answer: one collecting route per registered path (several templates may
 * match one URL, e.g. `/stocks/:code` and `/stocks/search`: their methods are united),
 * then a responder that sends 204 with `Allow` when any matched.
 */
function createOptionsRouter(): { options: Router; allow(path: string, method: RouteSpec['method']): void } {
  const collect = Router();
  const byPath = new Map<string, Set<string>>();
  const respond: RequestHandler = (req, res, next) => {
    const allowed = res.locals.allow as Set<string> | undefined;
    if (req.method !== 'OPTIONS' || !allowed) return next();
    res.setHeader('Allow', [...allowed, 'OPTIONS'].sort().join(', '));
    res.status(204).end();
  };
  const options = Router();
  options.use(collect, respond);
  return {
    options,
    allow(path, method) {
      let methods = byPath.get(path);
      if (!methods) {
        const set = (methods = new Set<string>());
        byPath.set(path, set);
        collect.options(path, (_req, res, next) => {
          const seen = (res.locals.allow ??= new Set<string>()) as Set<string>;
          for (const m of set) seen.add(m);
          next();
        });
      }
      methods.add(method.toUpperCase());
      // Express answers HEAD with the GET handler.
      if (method === 'get') methods.add('HEAD');
    },
  };
}

/** Express `/a/:b` → OpenAPI `/a/{b}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function describe(spec: RouteSpec): RouteConfig {
  const status = spec.status ?? 200;
  const success =
    status === 204
      ? { description: 'No content' }
      : {
          description: 'Success',
          content: {
            [spec.contentType ?? 'application/json']: {
              schema: spec.raw
                ? (spec.response ?? z.unknown())
                : z.object({
                    status: z.literal('success'),
                    data: spec.response ?? z.unknown(),
                    meta: z.object({ timestamp: z.string(), request_id: z.string() }).loose(),
                  }),
            },
          },
        };
  const errorCodes = new Set<number>([500, ...(spec.errors ?? [])]);
  if (spec.body || spec.query || spec.params) errorCodes.add(400);
  if (spec.body) errorCodes.add(413);
  if (spec.access !== 'public') errorCodes.add(401);
  if (spec.access === 'admin') errorCodes.add(403);
  if (!spec.rateLimitExempt) errorCodes.add(429);
  const responses: RouteConfig['responses'] = { [status]: success };
  for (const code of [...errorCodes].sort()) {
    const custom = spec.errorBodies?.[code];
    responses[code] = {
      description: custom?.description ?? ERROR_TEXT[code] ?? 'Error',
      content: { 'application/json': { schema: custom?.schema ?? (code === 429 ? rateLimitBody : errorEnvelope) } },
    };
  }
  return {
    method: spec.method,
    path: toOpenApiPath(spec.path),
    summary: spec.summary,
    description: spec.description,
    tags: [...spec.tags],
    security: spec.access === 'public' ? [] : [{ bearerAuth: [] }],
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    },
    responses,
  };
}

/** Build the OpenAPI 3.1 document for the given routes. */
export function buildOpenApiDocument(routes: readonly RouteSpec[], info: { version: string; description: string }) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from POST /api/v1/auth/login (expires_in 3600 s); renew with /auth/refresh.',
  });
  for (const spec of routes) registry.registerPath(describe(spec));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'stockscreen API', version: info.version, description: info.description },
    servers: [{ url: '/', description: 'this daemon' }],
  });
}
