/**
 * The alert evaluator against a real sqlite and a real Redis (claims, bus, pub/sub):
 * each type, one-shot vs recurring re-arm, cooldown on a manual clock, durable record
 * before publish, no database reads per tick, and exactly-once across two instances.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NewPriceAlert as AlertRequest } from '../../../daemon/contract/alerts.js';
import { createManualClock, type ManualClock } from '../../../daemon/infra/clock.js';
import type { AlertsRepo } from '../../../daemon/store/alerts-repo.js';
import type { TestStore } from '../../helpers/portfolio-harness.js';
import { alertSubscribers, openAlertStore, redisPrefix, startInstance, tick, type AlertInstance, type InstanceOptions } from './stack.js';

const T0 = Date.parse('2025-03-04T01:00:00Z');
let store: TestStore;
let clock: ManualClock;
let redis: ReturnType<typeof redisPrefix>;
const instances: AlertInstance[] = [];

beforeEach(async () => {
  store = await openAlertStore();
  clock = createManualClock(T0);
  redis = redisPrefix('alerts-eval');
});
afterEach(async () => {
  for (const i of instances.splice(0)) await i.close();
  await redis.cleanup();
  await store.close();
});

async function instance(extra: Partial<InstanceOptions> = {}): Promise<AlertInstance> {
  const i = await startInstance(store.settings, { prefix: redis.prefix, clock, ...extra });
  instances.push(i);
  return i;
}

async function alertFor(i: AlertInstance, input: AlertRequest, tier: 'free' | 'pro' = 'pro') {
  const user = await store.user(tier);
  return { user, alert: await i.service.create({ id: user.id, tier }, input) };
}

describe('conditions of each type fire on a tick', () => {
  const cases: [string, AlertRequest, number[], number][] = [
    // [label, alert, prices of the ticks (volume in the event's volume for volume alerts), index of the firing tick]
    ['price_above 71,000', { code: '005930', alert_type: 'price_above', threshold: 71000 }, [70900, 71000], 1],
    ['price_below 69,000', { code: '005930', alert_type: 'price_below', threshold: 69000 }, [69100, 69000], 1],
    // change vs 70,000: 73,500 → +5%; 73,400 → +4.86%
    ['change_percent_above 5', { code: '005930', alert_type: 'change_percent_above', threshold: 5 }, [73400, 73500], 1],
    // 66,500 → −5%; 66,600 → −4.86%
    ['change_percent_below -5', { code: '005930', alert_type: 'change_percent_below', threshold: -5 }, [66600, 66500], 1],
  ];
  for (const [label, input, prices, firing] of cases) {
    it(label, async () => {
      const i = await instance();
      const { alert } = await alertFor(i, input);
      const fired = [];
      for (const price of prices) fired.push((await i.evaluator.onTick([tick('005930', price)])).length);
      expect(fired).toEqual(prices.map((_, k) => (k === firing ? 1 : 0)));
      const [event] = await i.published();
      expect(event).toMatchObject({ type: 'alert', alert_id: alert.id, code: '005930', alert_type: input.alert_type, threshold: input.threshold, current_price: prices[firing], ts: T0 });
    });
  }

  it('volume_above against the computed 20-day average (005930: 400,000)', async () => {
    const i = await instance();
    await alertFor(i, { code: '005930', alert_type: 'volume_above', threshold: 2 });
    // 2 × 400,000 = 800,000
    expect(await i.evaluator.onTick([tick('005930', 70000, { volume: 799_999 })])).toHaveLength(0);
    const [firing] = await i.evaluator.onTick([tick('005930', 70000, { volume: 800_000 })]);
    expect(firing?.message).toContain('2× its 20-day average 400,000');
  });

  it('volume_above against the mean of the last 20 bars when no indicator exists (000660: 100,000)', async () => {
    const i = await instance();
    await alertFor(i, { code: '000660', alert_type: 'volume_above', threshold: 3 });
    // bars alternate 50,000 / 150,000 → mean 100,000; 3 × 100,000 = 300,000
    expect(await i.evaluator.onTick([tick('000660', 200000, { volume: 299_000 })])).toHaveLength(0);
    expect(await i.evaluator.onTick([tick('000660', 200000, { volume: 300_000 })])).toHaveLength(1);
  });

  it('only evaluates the alerts of the ticked stock', async () => {
    const i = await instance();
    await alertFor(i, { code: '035720', alert_type: 'price_above', threshold: 1 });
    expect(await i.evaluator.onTick([tick('005930', 99_000)])).toEqual([]);
  });
});

describe('one-shot and recurring alerts', () => {
  it('a one-shot alert fires once and becomes inactive', async () => {
    const i = await instance();
    const { user, alert } = await alertFor(i, { code: '005930', alert_type: 'price_above', threshold: 71000 });
    expect(await i.evaluator.onTick([tick('005930', 71500), tick('005930', 72000)])).toHaveLength(1);
    expect(await i.evaluator.onTick([tick('005930', 69000)])).toHaveLength(0);
    expect(await i.evaluator.onTick([tick('005930', 72000)])).toHaveLength(0);
    expect(await i.service.get(user.id, alert.id)).toMatchObject({ active: false, fire_count: 1, last_fired_at: T0 });
    const history = await i.service.events(user.id, { alertId: alert.id, limit: 10, offset: 0 });
    expect(history.items.map((e) => [e.price, e.generation])).toEqual([[71500, 0]]);
    expect(i.evaluator.size().alerts).toBe(0);
  });

  it('a recurring alert re-arms only after the condition was false again', async () => {
    const i = await instance();
    const { user, alert } = await alertFor(i, { code: '005930', alert_type: 'price_above', threshold: 71000, recurring: true });
    const fired: number[] = [];
    for (const price of [71500, 72000, 71000, 70000, 71200, 71300]) fired.push((await i.evaluator.onTick([tick('005930', price)])).length);
    // fires at 71,500; stays above (72,000, 71,000) → nothing; 70,000 re-arms; 71,200 fires; 71,300 nothing
    expect(fired).toEqual([1, 0, 0, 0, 1, 0]);
    const history = await i.service.events(user.id, { alertId: alert.id, limit: 10, offset: 0 });
    expect(history.items.map((e) => e.price)).toEqual([71200, 71500]);
    expect(await i.service.get(user.id, alert.id)).toMatchObject({ active: true, fire_count: 2, armed: false });
  });

  it('a recurring alert honours its cooldown (manual clock)', async () => {
    const i = await instance();
    await alertFor(i, { code: '005930', alert_type: 'price_above', threshold: 71000, recurring: true, cooldown_s: 60 });
    const at = async (seconds: number, price: number) => {
      clock.set(T0 + seconds * 1000);
      return (await i.evaluator.onTick([tick('005930', price)])).length;
    };
    expect(await at(0, 71500)).toBe(1);
    expect(await at(10, 70000)).toBe(0); // re-armed
    expect(await at(30, 71500)).toBe(0); // 30 s < 60 s cooldown
    expect(await at(59, 71500)).toBe(0);
    expect(await at(60, 71500)).toBe(1); // cooldown over, still armed
    expect((await i.published()).map((e) => e.ts)).toEqual([T0, T0 + 60_000]);
  });

  it('records the firing durably before publishing it', async () => {
    let recordedAtPublish = -1;
    const i = await instance({
      publish: (bus, repo) => async (event) => {
        recordedAtPublish = (await repo.events(event.user_id, { alertId: event.alert_id, limit: 10, offset: 0 })).total;
        return bus.publish(event);
      },
    });
    await alertFor(i, { code: '005930', alert_type: 'price_below', threshold: 69000 });
    await i.evaluator.onTick([tick('005930', 68000)]);
    expect(recordedAtPublish).toBe(1);
  });

  it('reads nothing from the database per tick', async () => {
    const calls: string[] = [];
    const spy = (repo: AlertsRepo): AlertsRepo =>
      new Proxy(repo, { get: (target, prop: keyof AlertsRepo) => (...args: unknown[]) => (calls.push(String(prop)), (target[prop] as (...a: unknown[]) => unknown)(...args)) });
    const setup = await instance();
    await alertFor(setup, { code: '005930', alert_type: 'price_above', threshold: 90000 });
    await alertFor(setup, { code: '005930', alert_type: 'volume_above', threshold: 5 });
    const i = await instance({ wrapRepo: spy });
    expect(i.evaluator.size()).toEqual({ alerts: 2, codes: 1 });
    calls.length = 0;
    for (let k = 0; k < 200; k++) await i.evaluator.onTick([tick('005930', 70000 + k), tick('000660', 200000)]);
    expect(calls).toEqual([]);
  });
});

describe('several daemon instances', () => {
  it('fire each alert exactly once when both evaluate the same ticks', async () => {
    const a = await instance();
    const { user, alert } = await alertFor(a, { code: '005930', alert_type: 'price_above', threshold: 71000, recurring: true });
    const b = await instance(); // loads the alert at start
    const both = async (price: number) => (await Promise.all([a.evaluator.onTick([tick('005930', price)]), b.evaluator.onTick([tick('005930', price)])])).flat();
    expect(await both(71500)).toHaveLength(1);
    expect(await both(72000)).toHaveLength(0);
    expect(await both(70000)).toHaveLength(0);
    const second = await both(71200);
    expect(second).toHaveLength(1);
    expect(second[0]!.generation).toBe(1);
    const history = await a.service.events(user.id, { alertId: alert.id, limit: 10, offset: 0 });
    expect(history.items.map((e) => e.price)).toEqual([71200, 71500]);
    expect((await a.published()).filter((e) => e.alert_id === alert.id)).toHaveLength(2);
    // The durable record is the claim: one row per generation, nothing claimed in Redis.
    expect(history.items.map((e) => e.generation)).toEqual([1, 0]);
    expect(await a.commands.keys(`${a.redis.key('alert-fire')}*`)).toEqual([]);
    expect(b.evaluator.inspect(alert.id)).toMatchObject({ generation: 2, armed: false });
  });

  it('does not publish a firing whose generation another instance has recorded', async () => {
    // Given an alert whose first firing was recorded by another instance this one did not hear from
    const i = await instance();
    const { user, alert } = await alertFor(i, { code: '005930', alert_type: 'price_above', threshold: 71000, recurring: true });
    const elsewhere = {
      id: 'elsewhere-0', alert_id: alert.id, user_id: user.id, generation: 0, code: '005930', alert_type: 'price_above' as const,
      threshold: 71000, price: 71100, change_percent: 1.57, volume: 1000, message: 'fired elsewhere', fired_at: T0, preset_id: null, claim: '',
    };
    expect(await i.repo.recordFiring(elsewhere)).toBe(true);
    // When this instance sees a crossing tick for the same generation
    expect(await i.evaluator.onTick([tick('005930', 71500)])).toEqual([]);
    // Then its insert loses: no second record, nothing published, and it advances like the winner
    expect((await i.service.events(user.id, { alertId: alert.id, limit: 10, offset: 0 })).items.map((e) => e.id)).toEqual(['elsewhere-0']);
    expect(await i.published()).toEqual([]);
    expect(i.evaluator.inspect(alert.id)).toMatchObject({ generation: 1, armed: false });
  });

  it('retries a firing whose record failed, and never records a generation twice', async () => {
    // Given a database that fails the first recording (a crash or an outage before the commit)
    let failures = 1;
    const i = await instance({
      wrapRepo: (repo) => ({
        ...repo,
        recordFiring: async (r) => (failures-- > 0 ? Promise.reject(new Error('database unavailable')) : repo.recordFiring(r)),
      }),
    });
    const { user, alert } = await alertFor(i, { code: '005930', alert_type: 'price_above', threshold: 71000 });
    // When the crossing tick comes, then again
    expect(await i.evaluator.onTick([tick('005930', 71500)])).toEqual([]);
    expect(i.evaluator.inspect(alert.id)).toMatchObject({ generation: 0, armed: true }); // not lost: still armed
    const fired = await i.evaluator.onTick([tick('005930', 71600)]);
    // Then the firing is recorded once, as generation 0, and published once
    expect(fired.map((f) => [f.generation, f.price])).toEqual([[0, 71600]]);
    expect((await i.service.events(user.id, { alertId: alert.id, limit: 10, offset: 0 })).total).toBe(1);
    expect(await i.published()).toHaveLength(1);
  });

  it('a one-shot alert fires once across instances and leaves both indexes', async () => {
    const a = await instance();
    const b = await instance();
    await vi.waitFor(async () => expect(await alertSubscribers(a)).toBe(2));
    const { alert } = await alertFor(a, { code: '005930', alert_type: 'price_below', threshold: 69000 });
    await vi.waitFor(() => expect(b.evaluator.size().alerts).toBe(1)); // reached b through pub/sub
    const fired = (await Promise.all([a.evaluator.onTick([tick('005930', 68000)]), b.evaluator.onTick([tick('005930', 68000)])])).flat();
    expect(fired.map((f) => f.alert_id)).toEqual([alert.id]);
    expect([a.evaluator.size().alerts, b.evaluator.size().alerts]).toEqual([0, 0]);
    expect(await a.published()).toHaveLength(1);
  });

  it('share firings and re-arms when each tick is evaluated by one instance only', async () => {
    const a = await instance();
    const b = await instance();
    await vi.waitFor(async () => expect(await alertSubscribers(a)).toBe(2));
    const { user, alert } = await alertFor(a, { code: '005930', alert_type: 'price_above', threshold: 71000, recurring: true });
    await vi.waitFor(() => expect(b.evaluator.inspect(alert.id)).toBeDefined());
    expect(await a.evaluator.onTick([tick('005930', 71500)])).toHaveLength(1);
    await vi.waitFor(() => expect(b.evaluator.inspect(alert.id)).toMatchObject({ generation: 1, armed: false })); // b learns of the firing
    expect(await b.evaluator.onTick([tick('005930', 72000)])).toHaveLength(0); // still above: no second firing on b
    expect(await b.evaluator.onTick([tick('005930', 70000)])).toHaveLength(0); // b re-arms …
    await vi.waitFor(() => expect(a.evaluator.inspect(alert.id)?.armed).toBe(true)); // … and a learns of it
    expect(await a.evaluator.onTick([tick('005930', 71200)])).toHaveLength(1);
    const history = await a.service.events(user.id, { alertId: alert.id, limit: 10, offset: 0 });
    expect(history.items.map((e) => e.price)).toEqual([71200, 71500]);
  });

  it('changes made on one instance reach the other (update, deactivate, delete)', async () => {
    const a = await instance();
    const b = await instance();
    await vi.waitFor(async () => expect(await alertSubscribers(a)).toBe(2));
    const { user, alert } = await alertFor(a, { code: '005930', alert_type: 'price_above', threshold: 71000 });
    const owner = { id: user.id, tier: 'pro' as const };
    await vi.waitFor(() => expect(b.evaluator.size().alerts).toBe(1));
    await a.service.update(owner, alert.id, { threshold: 75000 });
    await vi.waitFor(() => expect(b.evaluator.inspect(alert.id)?.alert.threshold).toBe(75000));
    expect(await b.evaluator.onTick([tick('005930', 72000)])).toEqual([]);
    await a.service.update(owner, alert.id, { active: false });
    await vi.waitFor(() => expect(b.evaluator.size().alerts).toBe(0));
    await a.service.update(owner, alert.id, { active: true });
    await vi.waitFor(() => expect(b.evaluator.size().alerts).toBe(1));
    await a.service.delete(user.id, alert.id);
    await vi.waitFor(() => expect(b.evaluator.size().alerts).toBe(0));
    expect(await b.evaluator.onTick([tick('005930', 80000)])).toEqual([]);
  });
});
