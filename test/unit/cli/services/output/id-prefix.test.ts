import { describe, expect, it } from 'vitest';
import { CliError } from '../../../../../cli/services/session/errors.js';
import { isFullId, matchIdPrefix, shortId } from '../../../../../cli/services/output/id-prefix.js';

const IDS = ['6f1c2a9e-0000-4000-8000-000000000001', '6f1d0000-0000-4000-8000-000000000002', 'ab000000-0000-4000-8000-000000000003'];

describe('id prefixes', () => {
  it('resolves a unique prefix of at least 4 characters, in any case', () => {
    expect(matchIdPrefix('6F1C', IDS, 'alert')).toBe(IDS[0]);
    expect(matchIdPrefix('ab00', IDS, 'alert')).toBe(IDS[2]);
  });

  it('refuses short and ambiguous prefixes (usage, exit 2) and unknown ones (NOT_FOUND)', () => {
    expect(() => matchIdPrefix('6f1', IDS, 'alert')).toThrow('alert id "6f1" is too short');
    const ambiguous = (() => {
      try {
        matchIdPrefix('6f1c', [IDS[0]!, '6f1c9999-0000-4000-8000-000000000009'], 'holding');
      } catch (err) {
        return err as CliError;
      }
    })();
    expect(ambiguous?.message).toBe('"6f1c" matches 2 holdings');
    expect(ambiguous?.exitCode).toBe(2);
    const none = (() => {
      try {
        matchIdPrefix('ffff', IDS, 'alert');
      } catch (err) {
        return err as CliError;
      }
    })();
    expect([none?.code, none?.exitCode]).toEqual(['NOT_FOUND', 1]);
  });

  it('shows 8 characters and recognises full ids', () => {
    expect(shortId(IDS[0]!)).toBe('6f1c2a9e');
    expect(isFullId(IDS[0]!)).toBe(true);
    expect(isFullId('6f1c2a9e')).toBe(false);
  });
});
