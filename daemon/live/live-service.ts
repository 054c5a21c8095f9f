/**
 * Live screens as a use case: resolve what a subscriber names (a preset of theirs, a
 * template, an inline query in either request shape) into a query parsed once by the
 * screening request parser, enforce the tier limits (per connection here, per user across
 * daemons through the registry), and hand the query to the engine.
 *
 * Anonymous callers get templates only: a template's screen is shared by everyone who opens it
 * (identical queries share one screen), so anonymous connections cannot add whole lists of
 * their own however many there are; a custom query needs an account (and its tier's budget and
 * per-user limit).
 *
 * Failures are AppErrors whose details carry a `reason` (unknown_preset, unknown_template,
 * invalid_query, live_screen_limit, sign_in_required) and the field details of the parser; the WebSocket edge
 * turns them into SUBSCRIPTION_FAILED.
 */
import type { ScreenCaller } from '../screening/engine/cost.js';
import { randomUUID } from 'node:crypto';
import type { Tier } from '../kernel/roles.js';
import { AppError, isAppError } from '../errors.js';
import type { ScreenQuery } from '../screening/engine/query.js';
import { normalizeQuery } from '../screening/request/request.js';
import { applyTemplateOverrides, getTemplate } from '../screening/templates/templates.js';
import type { LiveMemberRow, LiveScreenEngine, LiveScreenListener } from './engine.js';
import type { LiveRegistry, LiveScreenEntry } from './registry.js';

/** What a subscriber names. */
export type LiveSource = { kind: 'preset' | 'template'; id: string } | { kind: 'query'; body: unknown };

/** Live screens a tier may hold. */
export interface LiveScreenLimit {
  per_connection: number;
  per_user: number;
}

/** Who subscribes. */
export interface LiveOwner {
  userId: string | null;
  tier: Tier;
  connectionId: string;
  /** Live screens this connection holds already. */
  held: number;
}

/** One subscriber's live screen. */
export interface LiveSubscription {
  readonly id: string;
  /** `preset:<id>`, `template:<id>` or `query`. */
  readonly source: string;
  readonly query: ScreenQuery;
  members(): LiveMemberRow[];
  total(): number;
  /** Stop it (engine and registry); idempotent. */
  close(): void;
}

/** Collaborators of the service. */
export interface LiveServiceDeps {
  engine: LiveScreenEngine;
  registry: LiveRegistry;
  /** Parse a screening body within `caller`'s cost budget (ScreenService.parse). @throws AppError INVALID_REQUEST */
  parse(body: unknown, caller: ScreenCaller): ScreenQuery;
  /** The owner's preset body, or null when it is not theirs or does not exist. */
  presetQuery(userId: string, id: string): Promise<Record<string, unknown> | null>;
  limits: Readonly<Record<Tier, LiveScreenLimit>>;
  daemonId: string;
  now(): number;
}

/** The service. */
export interface LiveService {
  /** Open a live screen (under `id` when restoring one). @throws AppError with details.reason (see the module comment) */
  open(owner: LiveOwner, source: LiveSource, listener: LiveScreenListener, id?: string): Promise<LiveSubscription>;
  /** Every screen held on this daemon, for lease renewal. */
  held(): Iterable<{ userId: string; screenId: string }>;
}

const fail = (code: 'INVALID_REQUEST' | 'NOT_FOUND' | 'FORBIDDEN', message: string, details: Record<string, unknown>) => new AppError(code, message, details);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parse `body`, re-labelling a failure as invalid_query with its field details under `query.`. */
function parseQuery(deps: LiveServiceDeps, owner: LiveOwner, body: unknown, label: string): ScreenQuery {
  try {
    return deps.parse(body, owner.userId === null ? 'anonymous' : owner.tier);
  } catch (err) {
    if (!isAppError(err)) throw err;
    const fields = Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`query.${k}`, v]));
    throw fail('INVALID_REQUEST', `Invalid ${label}: ${err.message}`, { reason: 'invalid_query', ...fields });
  }
}

async function resolve(deps: LiveServiceDeps, owner: LiveOwner, source: LiveSource): Promise<ScreenQuery> {
  if (source.kind === 'query' && owner.userId === null) {
    throw fail('FORBIDDEN', 'Custom live screens need an account: sign in (send an auth message), or subscribe a template (template:<id>, GET /screen/templates)', {
      reason: 'sign_in_required', target: 'query',
    });
  }
  if (source.kind === 'query') return parseQuery(deps, owner, source.body, 'query');
  if (source.kind === 'template') {
    const template = getTemplate(source.id);
    if (!template) throw fail('NOT_FOUND', `Unknown template: ${source.id}`, { reason: 'unknown_template', target: `template:${source.id}` });
    return applyTemplateOverrides(template);
  }
  // Another user's preset reads as unknown, like its 404 over REST; preset ids are UUIDs.
  const body = owner.userId === null || !UUID.test(source.id) ? null : await deps.presetQuery(owner.userId, source.id);
  if (body === null) throw fail('NOT_FOUND', `Unknown preset: ${source.id}`, { reason: 'unknown_preset', target: `preset:${source.id}` });
  return parseQuery(deps, owner, body, `preset ${source.id}`);
}

function limitError(scope: 'connection' | 'user', owner: LiveOwner, limit: number, current: number): AppError {
  return fail('FORBIDDEN', `At most ${limit} live screen${limit === 1 ? '' : 's'} per ${scope} on the ${owner.tier} tier`, {
    reason: 'live_screen_limit', scope, tier: owner.tier, limit, current,
  });
}

/** Create the service. */
export function createLiveService(deps: LiveServiceDeps): LiveService {
  const open = new Map<string, { userId: string; screenId: string }>();
  return {
    async open(owner, source, listener, givenId) {
      const limit = deps.limits[owner.tier];
      if (owner.held >= limit.per_connection) throw limitError('connection', owner, limit.per_connection, owner.held);
      const query = await resolve(deps, owner, source);
      const id = givenId ?? randomUUID();
      const label = source.kind === 'query' ? 'query' : `${source.kind}:${source.id}`;
      if (owner.userId !== null) {
        const entry: LiveScreenEntry = {
          screen_id: id, source: label, query: JSON.parse(normalizeQuery(query)) as Record<string, unknown>,
          daemon: deps.daemonId, connection_id: owner.connectionId, created_at: new Date(deps.now()).toISOString(),
        };
        const claim = await deps.registry.claim(owner.userId, entry, limit.per_user);
        if (!claim.ok) throw limitError('user', owner, limit.per_user, claim.current);
      }
      let handle;
      try {
        handle = deps.engine.add(query, listener);
      } catch (err) {
        if (owner.userId !== null) void deps.registry.release(owner.userId, id);
        throw isAppError(err) ? fail('INVALID_REQUEST', `Invalid query: ${err.message}`, { reason: 'invalid_query', ...err.details }) : err;
      }
      if (owner.userId !== null) open.set(id, { userId: owner.userId, screenId: id });
      let closed = false;
      return {
        id, source: label, query,
        members: () => handle.members(),
        total: () => handle.total(),
        close() {
          if (closed) return;
          closed = true;
          handle.close();
          if (open.delete(id) && owner.userId !== null) void deps.registry.release(owner.userId, id);
        },
      };
    },
    held: () => open.values(),
  };
}
