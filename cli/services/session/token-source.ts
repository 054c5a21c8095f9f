/**
 * Access tokens of one profile, renewed with its refresh token when the server says the
 * access token expired or is invalid (the spec: refresh tokens rotate, so
 * the new pair is saved before the call is retried).
 */
import type { TokenPair } from '../../../daemon/contract/users.js';
import type { TokenSource } from '../transport/api-client.js';
import { credentialsFromTokens, type CredentialsStore } from './credentials.js';
import { CliError } from './errors.js';

/** What a token source needs. */
export interface TokenSourceDeps {
  store: CredentialsStore;
  profile: string;
  /** POST /auth/refresh; throws CliError UNAUTHORIZED when the refresh token is no longer valid. */
  refresh(refreshToken: string): Promise<TokenPair>;
}

/**
 * Create the token source of a profile; it renews at most once per CLI invocation so a
 * server that keeps refusing cannot cause a loop.
 */
export function createTokenSource(deps: TokenSourceDeps): TokenSource {
  let renewed = false;
  return {
    async accessToken() {
      return (await deps.store.get(deps.profile))?.access_token;
    },
    async renew(rejected) {
      if (renewed) return undefined;
      renewed = true;
      const saved = await deps.store.get(deps.profile);
      if (!saved) return undefined;
      // Another invocation rotated the pair meanwhile: use its token rather than
      // replaying our (now used) refresh token, which the server would treat as reuse.
      if (saved.access_token !== rejected) return saved.access_token;
      let pair: TokenPair;
      try {
        pair = await deps.refresh(saved.refresh_token);
      } catch (err) {
        if (err instanceof CliError && err.code === 'UNAUTHORIZED') return undefined;
        throw err;
      }
      await deps.store.save(deps.profile, credentialsFromTokens(pair, saved.url, saved.email));
      return pair.access_token;
    },
  };
}
