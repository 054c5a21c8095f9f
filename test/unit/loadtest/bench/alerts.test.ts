import { describe, expect, it } from 'vitest';
import { alertEvaluationRows, alertMix, replayTicks, runAlertEvaluationBench, seededRandom, type AlertStock } from '../../../../loadtest/bench/alerts.js';

const STOCKS: AlertStock[] = Array.from({ length: 30 }, (_, i) => ({
  code: String(100000 + i), name: `Stock ${i}`, market: i % 2 ? 'KOSDAQ' : 'KOSPI', sector: null, close: 10_000 + i * 100, avgVolume: i % 5 === 0 ? null : 50_000,
}));

describe('the alert evaluation bench', () => {
  it('spreads the alerts over every stock, the five types in turn, a third recurring, thresholds away from the close', () => {
    const mix = alertMix(STOCKS, 100);
    expect(mix).toHaveLength(100);
    expect(new Set(mix.map((a) => a.code)).size).toBe(30);
    expect(mix.filter((a) => a.alert_type === 'price_above')).toHaveLength(20);
    expect(mix.filter((a) => a.recurring)).toHaveLength(34);
    for (const a of mix) {
      const close = STOCKS.find((s) => s.code === a.code)!.close;
      if (a.alert_type === 'price_above') expect(a.threshold).toBeGreaterThan(close * 1.019);
      if (a.alert_type === 'price_below') expect(a.threshold).toBeLessThan(close * 0.981);
      if (a.alert_type === 'change_percent_below') expect(a.threshold).toBeLessThanOrEqual(-3);
      if (a.alert_type === 'volume_above') expect(a.threshold).toBeGreaterThanOrEqual(1.5);
    }
    // Deterministic: the same seed makes the same mix
    expect(alertMix(STOCKS, 100)).toEqual(mix);
  });

  it('replays ticks within ±30 % of the close with a rising day volume', () => {
    const ticks = replayTicks(STOCKS, 3000);
    expect(ticks).toHaveLength(3000);
    const lastVolume = new Map<string, number>();
    for (const t of ticks) {
      expect(Math.abs(t.change_percent)).toBeLessThanOrEqual(30.0001);
      expect(t.volume).toBeGreaterThanOrEqual(lastVolume.get(t.code) ?? 0);
      lastVolume.set(t.code, t.volume);
    }
    expect(seededRandom(3)()).toBe(seededRandom(3)());
  });

  it('replays the ticks through the daemon\'s evaluator with and without alerts and reports every figure', async () => {
    // Given 300 alerts over 30 stocks and 4,000 ticks (enough drift for some to fire)
    const result = await runAlertEvaluationBench(STOCKS, { alerts: 300, ticks: 4000, batch: 500 });
    // Then both replays ran every tick, and only the one with alerts fired any
    expect(result).toMatchObject({ alerts: 300, stocks: 30, ticks: 4000, batch: 500 });
    expect(result.with_alerts.firings).toBeGreaterThan(0);
    expect(result.without_alerts.firings).toBe(0);
    const rows = alertEvaluationRows(result);
    expect(rows.map((r) => r.metric)).toEqual([
      'active alerts', 'ticks/s with alerts', 'ticks/s without alerts', 'ticks/s with alerts, batches of 500',
      'per tick p50 with alerts', 'per tick p99 with alerts', 'added per tick p50', 'added per tick p99', 'firings',
    ]);
    for (const r of rows) expect(typeof r.measured, r.metric).toBe('number');
    expect(rows.every((r) => r.scenario === 'alert evaluation (in process)')).toBe(true);
  });
});
