/**
 * Everything a command's logic needs for one invocation, built from the global options:
 * paths, the profile's credentials, the API client (with token renewal) and the printer.
 */
import type { TokenPair } from '../../../daemon/contract/users.js';
import type { CliIO } from '../../io.js';
import { API_PREFIX, createApiClient, type ApiClient } from '../transport/api-client.js';
import { createCredentialsStore, validateProfile, type CredentialsStore } from './credentials.js';
import { runningDaemonUrl } from '../daemon/daemon-state.js';
import { CliError, HINTS, LOCAL_CODES, usageError } from './errors.js';
import { createOutput, type Output } from '../output/output.js';
import type { Views } from '../output/views.js';
import { resolvePaths, type CliPaths } from './paths.js';
import type { Prompter } from './prompt.js';
import { createTokenSource } from './token-source.js';

/** The daemon URL when nothing else says otherwise. */
export const DEFAULT_URL = 'http://127.0.0.1:8000';

/** Global options after flag/env resolution. */
export interface GlobalOptions {
  /** --url / STOCKSCREEN_URL, when given. */
  url?: string;
  json: boolean;
  profile: string;
  color: boolean;
}

/** Where the base URL came from. */
export type UrlSource = 'flag' | 'profile' | 'daemon' | 'default';

/** One invocation's collaborators. */
export interface Session {
  io: CliIO;
  env: NodeJS.ProcessEnv;
  paths: CliPaths;
  profile: string;
  baseUrl: string;
  urlSource: UrlSource;
  store: CredentialsStore;
  /** Authenticated client (renews tokens of the profile). */
  api: ApiClient;
  out: Output;
  /** The terminal views (Ink); only used when `out.mode` is `tty`. */
  views: Views;
  prompter(): Prompter;
}

/** What the UI layer supplies. */
export interface SessionDeps {
  renderers: Views;
  prompter(): Prompter;
}

/**
 * Check a --url value.
 * @throws CliError USAGE unless it is an http(s) URL
 */
export function validateUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`invalid --url "${value}"`, 'give a URL such as http://127.0.0.1:8000');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--url must be http or https, got "${value}"`);
  return value.replace(/\/+$/, '');
}

/** Base URL: --url/STOCKSCREEN_URL, else the profile's saved URL, else a daemon this CLI started, else the default. */
export async function resolveBaseUrl(globals: GlobalOptions, store: CredentialsStore, paths: CliPaths): Promise<{ url: string; source: UrlSource }> {
  if (globals.url) return { url: validateUrl(globals.url), source: 'flag' };
  const saved = (await store.get(globals.profile))?.url;
  if (saved) return { url: saved, source: 'profile' };
  const started = runningDaemonUrl(paths);
  if (started) return { url: started, source: 'daemon' };
  return { url: DEFAULT_URL, source: 'default' };
}

/** "Not logged in" for a profile, with the exact login command as the hint. */
function notLoggedIn(profile: string): CliError {
  const hint = profile === 'default' ? HINTS.login : `run \`stockscreen --profile ${profile} login\``;
  return new CliError({ code: LOCAL_CODES.NOT_LOGGED_IN, message: `not logged in (profile ${profile})`, hint });
}

/** Build the session for one command. */
export async function createSession(io: CliIO, env: NodeJS.ProcessEnv, globals: GlobalOptions, deps: SessionDeps): Promise<Session> {
  const profile = validateProfile(globals.profile);
  const paths = resolvePaths(env);
  const store = createCredentialsStore(paths.credentialsFile);
  const { url: baseUrl, source: urlSource } = await resolveBaseUrl(globals, store, paths);
  const anonymous = createApiClient({ baseUrl });
  const tokens = createTokenSource({
    store,
    profile,
    refresh: async (refreshToken) =>
      (await anonymous.request<TokenPair>({ method: 'POST', path: `${API_PREFIX}/auth/refresh`, body: { refresh_token: refreshToken }, auth: false })).data,
  });
  return {
    io,
    env,
    paths,
    profile,
    baseUrl,
    urlSource,
    store,
    api: createApiClient({ baseUrl, tokens, missingToken: () => notLoggedIn(profile) }),
    out: createOutput(io, { json: globals.json, color: globals.color }, deps.renderers),
    views: deps.renderers,
    prompter: () => io.prompter ?? deps.prompter(),
  };
}
