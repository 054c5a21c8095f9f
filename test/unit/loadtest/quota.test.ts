import { describe, expect, it } from 'vitest';
import { CLOSED_LOOP_PLAN_PER_CONNECTION_S, plannedRequests, throttleProblem, type Quota } from '../../../loadtest/quota.js';

const free: Quota = { tier: 'free', role: 'user', limit: 100, remaining: 97 };

describe('will the token\'s quota throttle the run', () => {
  it('plans rate × seconds at a fixed rate and a per-connection figure in a closed loop, warm-up included', () => {
    expect(plannedRequests({ connections: 10, warmup: 2, duration: 8, rate: 50 })).toBe(500);
    expect(plannedRequests({ connections: 2, warmup: 0, duration: 1 })).toBe(2 * CLOSED_LOOP_PLAN_PER_CONNECTION_S);
  });

  it('names the tier, the quota left, the plan and the ways out when the quota is short', () => {
    const problem = throttleProblem(free, { connections: 2, warmup: 0, duration: 1 });
    expect(problem).toMatch(/^the bench token's account would be rate-limited: the free tier, 100 requests per window, 97 left, about 200 requests planned \(2 connections × 1 s × ~100 req\/s closed loop\)/);
    expect(problem).toContain('STOCKSCREEN_ADMIN_EMAIL');
    expect(problem).toContain('stockscreen admin users set-tier');
    expect(problem).toContain('`stockscreen admin users loadtest-grant <email> --for 2h`');
  });

  it('lets a run through when the quota covers it, or when the daemon sends no rate-limit headers', () => {
    expect(throttleProblem(free, { connections: 1, warmup: 0, duration: 1, rate: 90 })).toBeNull();
    expect(throttleProblem({ ...free, remaining: 97 }, { connections: 1, warmup: 0, duration: 1, rate: 97 })).toBeNull();
    expect(throttleProblem({ tier: 'enterprise', role: 'user', limit: 1e9, remaining: 1e9 - 5 }, { connections: 10, warmup: 5, duration: 30 })).toBeNull();
    expect(throttleProblem({ tier: 'free', role: 'user', limit: null, remaining: null }, { connections: 10, warmup: 5, duration: 30 })).toBeNull();
  });
});
