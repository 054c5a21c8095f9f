/**
 * Redis Cluster hash tags naming one caller. Every key a single script call touches for that
 * caller — its rate-limit counters, its token's revocation mark — carries the same tag, so
 * they hash to one slot. Build them here, never by hand, so the spellings cannot drift apart.
 */

/** The tag of a signed-in user's keys. */
export const userTag = (userId: string): string => `{u:${userId}}`;

/** The tag of an anonymous caller's keys (its client address, as ratelimit/policy keys it). */
export const addressTag = (address: string): string => `{a:${address}}`;
