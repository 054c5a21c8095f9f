import { describe, expect, it } from 'vitest';
import { ensureFdLimit, parseLimits } from '../../../loadtest/fd-limit.js';

const LIMITS_TEXT = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('open-file limits', () => {
  it('reads the soft and hard limit from /proc/<pid>/limits', () => {
    expect(parseLimits(LIMITS_TEXT)).toEqual({ soft: 1024, hard: 524288 });
    expect(parseLimits('Max open files  unlimited  unlimited  files')).toEqual({ soft: Infinity, hard: Infinity });
    expect(parseLimits('nothing here')).toBeNull();
  });

  it('says clearly when more descriptors are needed than the hard limit allows', async () => {
    // Given a need beyond any hard limit (2^31), raising cannot help
    const check = await ensureFdLimit(2 ** 31);
    if (check.limits === null) return; // no /proc on this system: nothing to read
    expect(check.enough).toBe(false);
    expect(check.note).toMatch(/needs 2147483648.*ulimit -n/);
  });

  it('needs nothing when the limit already covers the need', async () => {
    const check = await ensureFdLimit(16);
    expect(check.enough).toBe(true);
  });
});
