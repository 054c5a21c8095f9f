import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../../../daemon/config.js';

describe('feed kis configuration', () => {
  it('refuses feed kis without both the app key and the secret, naming the environment variables', () => {
    const err = (() => {
      try {
        loadConfig({ env: { STOCKSCREEN_FEED: 'kis', STOCKSCREEN_KIS_APP_KEY: 'PSkey', XDG_DATA_HOME: '/tmp' } });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.join('\n')).toMatch(/STOCKSCREEN_KIS_APP_SECRET/);
  });

  it('reads every STOCKSCREEN_KIS_* setting, with the provider\'s limits as defaults', () => {
    const c = loadConfig({ env: { STOCKSCREEN_FEED: 'kis', STOCKSCREEN_KIS_APP_KEY: 'PSkey', STOCKSCREEN_KIS_APP_SECRET: 'sec', XDG_DATA_HOME: '/tmp' } });
    expect(c).toMatchObject({
      feed: 'kis', kis_rest_url: 'https://openapi.koreainvestment.com:9443', kis_ws_url: 'ws://ops.koreainvestment.com:21000',
      kis_rest_calls_per_s: 20, kis_ws_max_registrations: 41, kis_token_interval_ms: 60_000,
    });
    const paper = loadConfig({
      env: {
        STOCKSCREEN_FEED: 'kis', STOCKSCREEN_KIS_APP_KEY: 'PSkey', STOCKSCREEN_KIS_APP_SECRET: 'sec', XDG_DATA_HOME: '/tmp',
        STOCKSCREEN_KIS_REST_URL: 'https://openapivts.koreainvestment.com:29443', STOCKSCREEN_KIS_WS_URL: 'ws://ops.koreainvestment.com:31000',
        STOCKSCREEN_KIS_REST_CALLS_PER_S: '2', STOCKSCREEN_KIS_WS_MAX_REGISTRATIONS: '41',
      },
    });
    expect(paper).toMatchObject({ kis_rest_calls_per_s: 2, kis_rest_url: 'https://openapivts.koreainvestment.com:29443' });
  });
});
