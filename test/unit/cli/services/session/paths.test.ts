import { describe, expect, it } from 'vitest';
import { resolvePaths } from '../../../../../cli/services/session/paths.js';

describe('resolvePaths', () => {
  it('puts credentials under XDG_CONFIG_HOME, pid and log under XDG_STATE_HOME, data under XDG_DATA_HOME', () => {
    const p = resolvePaths({ HOME: '/home/u', XDG_CONFIG_HOME: '/x/config', XDG_STATE_HOME: '/x/state', XDG_DATA_HOME: '/x/data' });
    expect(p.credentialsFile).toBe('/x/config/stockscreen/credentials.json');
    expect(p.pidFile).toBe('/x/state/stockscreen/stockscreend.pid');
    expect(p.logFile).toBe('/x/state/stockscreen/stockscreend.log');
    expect(p.dataDir).toBe('/x/data/stockscreen');
  });

  it('falls back to the XDG defaults under HOME, ignoring relative XDG values as the spec says', () => {
    const p = resolvePaths({ HOME: '/home/u', XDG_CONFIG_HOME: 'relative/config' });
    expect(p.configDir).toBe('/home/u/.config/stockscreen');
    expect(p.stateDir).toBe('/home/u/.local/state/stockscreen');
    expect(p.dataDir).toBe('/home/u/.local/share/stockscreen');
  });
});
