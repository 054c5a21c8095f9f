/**
 * Live screens as a use case: resolve what a subscriber names (a preset of theirs, a
 * template, an inline query in either request shape) into a query parsed once by the
 * screening request parser, enforce the tier limits (per connection here, per user across
 * daemons through the registry), and hand the query to the engine.
 *
 * A template may come with overrides (those of POST /screen/templates/{id}, validated and
 * compiled by the same screen-service calls): the query with them applied is the screen, so its
 * identity is that query (overrides that give the same query share a screen, others never do), and it
 * must fit the caller's cost budget (the template alone is the daemon's own query and is not
 * checked). `as_of` is refused, in overrides, a query or a preset: a live screen follows live prices
 * and would answer today's members under a past date.
 *
 * Anonymous callers get templates only: a template's screen is shared by everyone who opens it
 * (identical queries share one screen), so anonymous connections cannot add whole lists of
 * their own however many there are; a custom query needs an account (and its tier's budget and
 * per-user limit). Their overrides keep it so: market picks among a few lists per template, and
 * page, per_page and fields are windows on the same list (engine.ts); a sort of their own would
 * be a list of their own, so overriding `sort` needs an account too.
 *
 * Failures are AppErrors whose details carry a `reason` (unknown_preset, unknown_template,
 * invalid_query, live_screen_limit, sign_in_required) and the field details of the parser (under
 * `query.` or `overrides.`); the WebSocket edge turns them into SUBSCRIPTION_FAILED.
 */
import type { ScreenCaller } from '../screening/engine/cost.js';
import { randomUUID } from 'node:crypto';
import type { Tier } from '../kernel/roles.js';
import { AppError, isAppError } from '../errors.js';
import type { ScreenQuery } from '../screening/engine/query.js';
import type { ScreenService } from '../screening/engine/screen-service.js';
import { createTimeSlicer } from '../screening/engine/time-slicer.js';
import { normalizeQuery } from '../screening/request/request.js';
import { getTemplate, type ScreenTemplate, type TemplateOverrides } from '../screening/templates/templates.js';
import type { LiveMemberRow, LiveScreenEngine, LiveScreenListener } from './engine.js';
import type { LiveRegistry, LiveScreenEntry } from './registry.js';

/**
 * What a subscriber names: a preset of theirs, a template (with the overrides as the client sent
 * them, validated when the screen opens), or an inline query.
 */
export type LiveSource = { kind: 'preset'; id: string } | { kind: 'template'; id: string; overrides?: unknown } | { kind: 'query'; body: unknown };

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
  /** A template's overrides as applied (parsed); absent when none. */
  readonly overrides?: TemplateOverrides;
  members(): LiveMemberRow[];
  total(): number;
  /** Stop it (engine and registry); idempotent. */
  close(): void;
}

/** What the live service asks of the screen service. */
export type LiveScreening = Pick<ScreenService, 'parse' | 'templateOverrides' | 'compileTemplate'>;

/** Collaborators of the service. */
export interface LiveServiceDeps {
  engine: LiveScreenEngine;
  registry: LiveRegistry;
  /**
   * The screening calls: `parse` a body and `templateOverrides` + `compileTemplate` a template with
   * overrides, each within `caller`'s cost budget, as REST does. @throws AppError INVALID_REQUEST
   */
  screens: LiveScreening;
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

/** Who pays for a subscriber's query: their tier, or the anonymous budget. */
const callerOf = (owner: LiveOwner): ScreenCaller => (owner.userId === null ? 'anonymous' : owner.tier);

/** A parser's or a budget's refusal as invalid_query, its field details under `prefix` (`query`, `overrides`). */
function invalid(err: unknown, label: string, prefix: string, extra: Record<string, unknown> = {}): never {
  if (!isAppError(err)) throw err;
  const fields = Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`${prefix}.${k}`, v]));
  throw fail('INVALID_REQUEST', `Invalid ${label}: ${err.message}`, { reason: 'invalid_query', ...extra, ...fields });
}

/** Parse `body` within the owner's budget, re-labelling a failure as invalid_query with its field details under `query.`. */
function parseQuery(deps: LiveServiceDeps, owner: LiveOwner, body: unknown, label: string): ScreenQuery {
  try {
    return deps.screens.parse(body, callerOf(owner));
  } catch (err) {
    return invalid(err, label, 'query');
  }
}

/** The query a subscriber opens, with a template's overrides as applied. */
interface Resolved {
  query: ScreenQuery;
  overrides?: TemplateOverrides;
}

const LIVE_AS_OF = 'a live screen follows live prices; as_of is for POST /screen/templates/{id}';
const ANONYMOUS_SORT = 'a sort of your own is a live list of your own: sign in (send an auth message) or leave sort to the template';

/**
 * `template` with the subscriber's overrides, validated and costed by the calls POST
 * /screen/templates/{id} makes. No overrides (or an empty object): the template's own query,
 * shared by everyone and not charged to anyone's budget.
 */
function templateScreen(deps: LiveServiceDeps, owner: LiveOwner, template: ScreenTemplate, body: unknown): Resolved {
  const target = `template:${template.id}`;
  let overrides: TemplateOverrides;
  try {
    overrides = body === undefined ? {} : deps.screens.templateOverrides(template, body);
  } catch (err) {
    return invalid(err, `overrides of ${target}`, 'overrides', { target });
  }
  if (Object.keys(overrides).length === 0) return { query: deps.screens.compileTemplate(template, {}, 'trusted').query };
  if (overrides.as_of !== undefined) {
    throw fail('INVALID_REQUEST', `Invalid overrides of ${target}: as_of ${LIVE_AS_OF}`, { reason: 'invalid_query', target, 'overrides.as_of': LIVE_AS_OF });
  }
  if (overrides.sort !== undefined && owner.userId === null) {
    throw fail('FORBIDDEN', `Overriding a live template's sort needs an account: ${ANONYMOUS_SORT}`, { reason: 'sign_in_required', target, 'overrides.sort': ANONYMOUS_SORT });
  }
  try {
    return { query: deps.screens.compileTemplate(template, overrides, callerOf(owner)).query, overrides };
  } catch (err) {
    return invalid(err, `overrides of ${target}`, 'overrides', { target });
  }
}

async function resolve(deps: LiveServiceDeps, owner: LiveOwner, source: LiveSource): Promise<Resolved> {
  if (source.kind === 'query' && owner.userId === null) {
    throw fail('FORBIDDEN', 'Custom live screens need an account: sign in (send an auth message), or subscribe a template (template:<id>, GET /screen/templates)', {
      reason: 'sign_in_required', target: 'query',
    });
  }
  if (source.kind === 'query') return { query: liveOnly(parseQuery(deps, owner, source.body, 'query'), 'query') };
  if (source.kind === 'template') {
    const template = getTemplate(source.id);
    if (!template) throw fail('NOT_FOUND', `Unknown template: ${source.id}`, { reason: 'unknown_template', target: `template:${source.id}` });
    return templateScreen(deps, owner, template, source.overrides);
  }
  // Another user's preset reads as unknown, like its 404 over REST; preset ids are UUIDs.
  const body = owner.userId === null || !UUID.test(source.id) ? null : await deps.presetQuery(owner.userId, source.id);
  if (body === null) throw fail('NOT_FOUND', `Unknown preset: ${source.id}`, { reason: 'unknown_preset', target: `preset:${source.id}` });
  return { query: liveOnly(parseQuery(deps, owner, body, `preset ${source.id}`), `preset:${source.id}`) };
}

/** `query` unless it asks for a past date: a live screen follows live prices, and would silently answer today's. */
function liveOnly(query: ScreenQuery, target: string): ScreenQuery {
  if (query.as_of === undefined) return query;
  throw fail('INVALID_REQUEST', `Invalid query of ${target}: as_of ${LIVE_AS_OF}`, { reason: 'invalid_query', target, 'query.as_of': LIVE_AS_OF });
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
      const { query, overrides } = await resolve(deps, owner, source);
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
        // A whole list's first run in slices (a dear one is a hundred ms and more); the add takes it.
        await deps.engine.prepare(query, createTimeSlicer().checkpoint);
        handle = deps.engine.add(query, listener);
      } catch (err) {
        if (owner.userId !== null) void deps.registry.release(owner.userId, id);
        throw isAppError(err) ? fail('INVALID_REQUEST', `Invalid query: ${err.message}`, { reason: 'invalid_query', ...err.details }) : err;
      }
      if (owner.userId !== null) open.set(id, { userId: owner.userId, screenId: id });
      let closed = false;
      return {
        id, source: label, query, ...(overrides ? { overrides } : {}),
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
