import { describe, expect, it } from 'vitest';
import { createPacer } from '../../../../../../daemon/market/feeds/kis/pacer.js';

describe('the REST call pacer', () => {
  it('lets no more than the rate through in any one second, with several callers side by side', async () => {
    const pacer = createPacer(20);
    const sent: number[] = [];
    const worker = async (n: number) => {
      for (let i = 0; i < n; i++) if (await pacer.wait()) sent.push(performance.now());
    };
    await Promise.all([worker(12), worker(12), worker(12), worker(9)]);
    sent.sort((a, b) => a - b);
    expect(sent).toHaveLength(45);
    for (let i = 20; i < sent.length; i++) expect(sent[i]! - sent[i - 20]!).toBeGreaterThanOrEqual(1000);
  });

  it('a stopped pacer releases its waiters at once and lets nothing through', async () => {
    const pacer = createPacer(1);
    expect(await pacer.wait()).toBe(true);
    const waiting = pacer.wait();
    pacer.stop();
    expect(await waiting).toBe(false);
    expect(await pacer.wait()).toBe(false);
  });
});
