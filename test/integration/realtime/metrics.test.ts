/**
 * `GET /metrics` of a real daemon: the Prometheus text holds HTTP
 * request counts and latency histograms by route and status, WebSocket connections,
 * messages and queue depth, rate-limit decisions, job counts by state (market-data and backtest queues) and event-loop
 * lag. Job counts fail soft: a scrape succeeds when they cannot be read.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerJobCounts } from '../../../daemon/infra/metrics.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type TestClient } from '../ws/client.js';

/** Sample lines of metric `name` (exact name, any labels). */
const samples = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
const value = (line: string | undefined) => Number(line?.split(' ').at(-1));

describe('GET /metrics on a running daemon', () => {
  let t: TestDaemon;
  let ws: TestClient;
  let text: string;
  beforeAll(async () => {
    // Rate limiting on, so its decisions are counted.
    // metrics_public: a scraper without credentials (the access rules are test/security/headers-and-access.test.ts's).
    t = await startTestDaemon('metrics', { rate_limit: { enabled: true }, metrics_public: true });
    // A signed-in caller's requests, counted against its user and allowed.
    const { access_token: token } = await t.login();
    await t.request('/api/v1/stocks/005930', { token });
    await t.request('/api/v1/screen/templates', { token });
    ws = await connect(`${t.url.replace('http', 'ws')}/v1/ws`);
    await ws.next(ofType('connected'));
    ws.send({ type: 'ping' });
    await ws.next(ofType('pong'));
    const res = await t.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    text = await res.text();
  });
  afterAll(async () => {
    await ws?.close();
    await t?.close();
  });

  it('counts HTTP requests and their latency by method, route template and status', () => {
    const counted = samples(text, 'stockscreen_http_requests_total');
    expect(counted.some((l) => /method="GET"/.test(l) && /route="[^"]*stocks\/(:code|\{code\})[^"]*"/.test(l) && /status="\d{3}"/.test(l))).toBe(true);
    const buckets = samples(text, 'stockscreen_http_request_duration_seconds_bucket');
    expect(buckets.some((l) => /route="/.test(l) && /status="\d{3}"/.test(l) && /le="0.1"/.test(l))).toBe(true);
    expect(samples(text, 'stockscreen_http_request_duration_seconds_count').length).toBeGreaterThan(0);
  });

  it('reports WebSocket connections, messages and queue depth', () => {
    expect(value(samples(text, 'stockscreen_ws_connections')[0])).toBe(1);
    expect(value(samples(text, 'stockscreen_ws_messages_sent_total')[0])).toBeGreaterThanOrEqual(2); // connected, pong
    expect(samples(text, 'stockscreen_ws_queue_depth')).toHaveLength(1);
    expect(samples(text, 'stockscreen_ws_client_messages_total').some((l) => /type="ping"/.test(l))).toBe(true);
    expect(text).toContain('# TYPE stockscreen_ws_rate_limit_decisions_total counter');
  });

  it('counts rate-limit decisions', () => {
    expect(samples(text, 'stockscreen_rate_limit_decisions_total').some((l) => /decision="allowed"/.test(l))).toBe(true);
  });

  it('reports job counts by state, read from the queue', () => {
    const jobs = samples(text, 'stockscreen_jobs');
    for (const state of ['waiting', 'active', 'delayed', 'completed', 'failed']) expect(jobs.some((l) => l.includes(`state="${state}"`))).toBe(true);
    expect(value(samples(text, 'stockscreen_jobs_up')[0])).toBe(1);
  });

  it('reports the backtest queue\'s job counts by state apart', () => {
    const jobs = samples(text, 'stockscreen_backtest_jobs');
    for (const state of ['waiting', 'active', 'completed', 'failed']) expect(jobs.some((l) => l.includes(`state="${state}"`))).toBe(true);
    expect(value(samples(text, 'stockscreen_backtest_jobs_up')[0])).toBe(1);
    expect(text).toContain('# HELP stockscreen_backtest_jobs Jobs in the backtests queue by state');
  });

  it('exports the event-loop lag', () => {
    expect(samples(text, 'stockscreen_nodejs_eventloop_lag_seconds')).toHaveLength(1);
    expect(samples(text, 'stockscreen_nodejs_eventloop_lag_p99_seconds')).toHaveLength(1);
  });
});

describe('job counts fail soft', () => {
  it('Given counts that cannot be read, when scraped, then the scrape succeeds with stockscreen_jobs_up 0 and no job samples', async () => {
    const registry = new Registry();
    registerJobCounts(registry, () => Promise.reject(new Error('Connection is closed.')));
    const text = await registry.metrics();
    expect(samples(text, 'stockscreen_jobs')).toEqual([]);
    expect(value(samples(text, 'stockscreen_jobs_up')[0])).toBe(0);
  });

  it('Given a queue that does not answer, when scraped, then the scrape gives up after the timeout', async () => {
    const registry = new Registry();
    registerJobCounts(registry, () => new Promise(() => undefined), 20);
    expect(value(samples(await registry.metrics(), 'stockscreen_jobs_up')[0])).toBe(0);
  });

  it('Given readable counts, when scraped, then every state has a sample', async () => {
    const registry = new Registry();
    registerJobCounts(registry, async () => ({ waiting: 2, failed: 1 }));
    const text = await registry.metrics();
    expect(value(samples(text, 'stockscreen_jobs').find((l) => l.includes('state="waiting"')))).toBe(2);
    expect(value(samples(text, 'stockscreen_jobs').find((l) => l.includes('state="active"')))).toBe(0);
    expect(value(samples(text, 'stockscreen_jobs_up')[0])).toBe(1);
  });
});
