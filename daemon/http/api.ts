/**
 * The route table: each route declares, in one place, its method and path, who may call it,
 * its body/query/params schemas and body limit, its rate-limit class (exempt, endpoint limit,
 * free when answered from a cache), and its OpenAPI description. The router, the rate limiter
 * and the OpenAPI document all read these declarations; nothing else recognises paths.
 *
 * Every route runs the same chain, cheapest refusal first:
 * size and media-type gate (413/415 from headers alone) → identify the caller (401, no body
 * read; a caller without a valid token is first counted as anonymous, one Redis call, and
 * gets 429 instead once its address has spent the anonymous quota) → parse the JSON body
 * (route limit) → validate → rate limit (counts the request and reads the token's revocation
 * mark in one Redis call) → confirm (revoked 401, admin 403) → handlers.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { isAppError } from '../errors.js';
import { confirmCaller, requireCaller, type AuthGuardDeps } from './middleware/auth.js';
import { bodyGate, jsonBody } from './middleware/body.js';
import { validate } from './middleware/validate.js';
import { createMethodTable, type MethodTable } from './method-table.js';
import type { CachedAnswerKeys } from '../ratelimit/store.js';

/** Who may call a route. */
export type Access = 'public' | 'user' | 'admin';

/** Body limit of a route that declares none (bytes); the daemon's `body_limit` caps every route. */
export const DEFAULT_ROUTE_BODY_LIMIT = 16 * 1024;

/** What the validation step hands a route's handlers: its parsed params, query and body. */
export interface RequestValues<P = unknown, Q = unknown, B = unknown> {
  params: P;
  query: Q;
  body: B;
}

/** A request whose `valid` holds the parsed values `V` (set by the validation step before any handler runs). */
export type ValidRequest<V = RequestValues> = Request & { valid: V };

/** A handler of a route: its request's `valid` is typed by the route's schemas. */
export type RouteHandler<V = RequestValues> = (req: ValidRequest<V>, res: Response, next: NextFunction) => unknown;

/** The parsed value of an optional schema (undefined when the route declares none). */
type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The type of `req.valid.body` in handlers: `parseBody`'s value when the route has one, else the body schema's output. */
type BodyValue<B, PB> = [PB] extends [undefined] ? Parsed<B> : Awaited<PB>;

/** The values a route with these schemas (and body parser result `PB`) hands its handlers. */
export type RouteValues<P, Q, B, PB = undefined> = RequestValues<Parsed<P>, Parsed<Q>, BodyValue<B, PB>>;

/**
 * A route's contract. `path` uses express syntax (`/stocks/:code`). `V` types `req.valid` in its
 * hooks (`PV` while the body is being parsed, `PB` the body parser's value); `ApiBuilder.route`
 * infers them from the declaration.
 */
// The stored table holds routes of every shape (`any`): their hooks are called with what validation produced.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface RouteSpec<V = any, PB = unknown, PV = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  access: Access;
  body?: z.ZodType;
  query?: z.ZodObject;
  params?: z.ZodObject;
  /** Request headers the route reads, for OpenAPI (the handler validates them: headers are not parsed by the chain). */
  requestHeaders?: z.ZodObject;
  /**
   * Turns the parsed JSON body into the value handlers read from `req.valid.body`, in place of
   * validating it with `body` (which still documents it). Runs after params and query are
   * validated and the caller is known; may be async. @throws AppError for a bad body
   */
  parseBody?: (body: unknown, req: ValidRequest<PV>) => PB;
  /** Largest JSON body accepted, in bytes (default DEFAULT_ROUTE_BODY_LIMIT; never above the daemon's body_limit). */
  bodyLimit?: number;
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
  /** 'bearer': a public route that checks a bearer token of its own (/metrics), documented as secured. */
  security?: 'bearer';
  /** Response headers of this route, set first (so its error answers carry them too): a page's CSP, no-store. */
  headers?: Readonly<Record<string, string>>;
  /** Exempt from rate limiting: health, metrics, docs and the cached template list cost nothing worth counting. */
  rateLimitExempt?: boolean;
  /** The endpoint limit this route counts under, as a config key (default its own, e.g. 'POST /screen'). */
  limitAs?: string;
  /**
   * True when this request will be answered without work worth counting (the spec does
   * not count a result-cache hit). Runs after validation, so it reads `req.valid`. A lookup
   * instead: the answer may be in the shared cache, which the rate limiter reads in the same
   * Redis call as its counters (free when found).
   */
  freeWhen?: (req: ValidRequest<V>, res: Response) => boolean | CachedAnswerLookup | Promise<boolean>;
  /**
   * How many requests this one counts as against every rate limit (default 1): a screen's cost.
   * Runs after validation, so it reads `req.valid`.
   */
  weight?: (req: ValidRequest<V>) => number;
  /**
   * When set, a request that validation refuses (400) is counted too, as this many requests
   * (from what it made us parse: its bytes), so a stream of bad bodies spends the sender's quota.
   */
  refusalWeight?: (req: Request) => number;
}

/** A cached answer the rate limiter reads with its counters: where it is, and what to do with what was found. */
export interface CachedAnswerLookup {
  keys: CachedAnswerKeys;
  /**
   * What the call found under the keys (null: nothing, or the request was refused) and how many
   * admitted requests asked for it so far; true when the request is answered from it (free).
   */
  found(value: Buffer | null, asked: number): boolean;
}

/** What the rate limiter is told about a route when the route table is built. */
export interface LimitedRoute {
  /** 'GET', 'POST', … */
  method: string;
  /** OpenAPI-style template without the API prefix, e.g. '/stocks/{code}'. */
  template: string;
  limitAs?: string;
  freeWhen?: RouteSpec['freeWhen'];
  weight?: RouteSpec['weight'];
  refusalWeight?: RouteSpec['refusalWeight'];
}

/** Builds a route's rate-limit step (undefined: the route is not limited). */
export type RouteLimiter = (route: LimitedRoute) => RequestHandler | undefined;

/** What every route of a builder is wrapped in. */
export interface RouteGuards extends AuthGuardDeps {
  /** The daemon's `body_limit` in bytes: no route accepts more. */
  maxBodyBytes: number;
  /** The rate limiter (absent: nothing on this builder is limited). */
  limiter?: RouteLimiter;
}

/** A router plus its OpenAPI registrations. */
export interface ApiBuilder {
  readonly router: Router;
  /** Which methods each registered path answers (OPTIONS and 405 answers read it). */
  readonly methods: MethodTable;
  readonly routes: RouteSpec[];
  /**
   * Register a route. Its schemas type what its handlers read: `req.valid.params`, `.query` and
   * `.body` are the schemas' outputs (the body parser's value when it has one), with no casts.
   */
  route<P extends z.ZodObject | undefined = undefined, Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined, PB = undefined>(
    spec: RouteSpec<RouteValues<P, Q, B, PB>, PB, RequestValues<Parsed<P>, Parsed<Q>, unknown>> & { params?: P; query?: Q; body?: B },
    ...handlers: RouteHandler<RouteValues<P, Q, B, PB>>[]
  ): void;
}

/** The error envelope. */
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

/** Create a route builder mounted at `prefix` (used for the OpenAPI paths). */
export function createApiBuilder(prefix: string, guards: RouteGuards): ApiBuilder {
  const router = Router();
  const routes: RouteSpec[] = [];
  const methods = createMethodTable();
  return {
    router,
    methods,
    routes,
    route(spec, ...handlers) {
      const stored = spec as RouteSpec;
      routes.push({ ...stored, path: prefix + spec.path });
      methods.add(spec.path, spec.method);
      // The chain's validation step sets `req.valid` to what the handlers' type says before any of them runs.
      router[spec.method](spec.path, ...routeChain(stored, guards), ...(handlers as RequestHandler[]));
    },
  };
}

/** The steps every request of `spec` passes before its handlers (see the file comment). */
function routeChain(spec: RouteSpec, guards: RouteGuards): RequestHandler[] {
  const chain: RequestHandler[] = [];
  const headers = spec.headers;
  if (headers) {
    chain.push((_req, res, next) => {
      for (const name in headers) res.setHeader(name, headers[name]!);
      next();
    });
  }
  const takesBody = spec.body !== undefined || spec.parseBody !== undefined;
  const limit = Math.min(spec.bodyLimit ?? DEFAULT_ROUTE_BODY_LIMIT, guards.maxBodyBytes);
  if (takesBody) chain.push(bodyGate(limit));
  const limiter = spec.rateLimitExempt ? undefined : guards.limiter?.({
    method: spec.method.toUpperCase(), template: toOpenApiPath(spec.path), limitAs: spec.limitAs, freeWhen: spec.freeWhen,
    weight: spec.weight, refusalWeight: spec.refusalWeight,
  });
  if (spec.access !== 'public') chain.push(limiter ? countingUnauthenticated(requireCaller(guards), limiter) : requireCaller(guards));
  if (takesBody) chain.push(jsonBody(limit));
  if (takesBody || spec.query || spec.params) chain.push(limiter && spec.refusalWeight ? countingRefusals(validate(spec), limiter) : validate(spec));
  if (limiter) chain.push(limiter);
  if (spec.access !== 'public') chain.push(confirmCaller(guards, spec.access));
  return chain;
}

/**
 * `requireCaller`, but a caller it refuses (no token, or one that does not verify) passes the
 * rate limiter first as an anonymous caller (marked `rateLimitUnauthenticated`): counted
 * against its client address with weight 1 and nothing else looked at, then answered with its
 * 401 carrying the rate-limit headers — or 429 once the address's quota is spent. Without this
 * a protected route would refuse every unauthenticated request before any counting, and a
 * flood of them would never be throttled.
 */
function countingUnauthenticated(identifyStep: RequestHandler, limiter: RequestHandler): RequestHandler {
  return (req, res, next) => {
    identifyStep(req, res, (err?: unknown) => {
      if (!isAppError(err) || err.code !== 'UNAUTHORIZED') return next(err);
      req.rateLimitUnauthenticated = true;
      Promise.resolve(limiter(req, res, () => next(err))).catch(next);
    });
  };
}

/**
 * `validate`, but a request it refuses as invalid passes the rate limiter first (marked
 * `rateLimitRefusal`): counted, then answered with its 400 — or 429 when over the limit.
 */
function countingRefusals(validateStep: RequestHandler, limiter: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const refused = (err?: unknown): void => {
      if (!isAppError(err) || err.code !== 'INVALID_REQUEST') return next(err);
      req.rateLimitRefusal = true;
      Promise.resolve(limiter(req, res, () => next(err))).catch(next);
    };
    try {
      validateStep(req, res, refused);
    } catch (err) {
      refused(err);
    }
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
    security: spec.access === 'public' && spec.security !== 'bearer' ? [] : [{ bearerAuth: [] }],
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.requestHeaders ? { headers: spec.requestHeaders } : {}),
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    },
    responses,
  };
}

/** Build the OpenAPI 3.1 document for the given routes. */
export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  info: { version: string; description: string; tags?: readonly { name: string; description: string }[] },
) {
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
    ...(info.tags ? { tags: info.tags.map((t) => ({ ...t })) } : {}),
  });
}
