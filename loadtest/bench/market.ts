/** Loads the sample market into the bench daemon through the admin job API and waits for it. */
import type { JobView } from '../../daemon/contract/jobs.js';
import { accessTokenOf, type ApiClient } from '../api.js';

/** Size of the sample market. */
export interface MarketSize {
  stocks: number;
  days: number;
  seed: number;
}

/** Log in as the admin; returns the token. @throws ApiCallError when refused */
export async function adminLogin(api: ApiClient, email: string, password: string): Promise<string> {
  return accessTokenOf(await api.ok('/api/v1/auth/login', { json: { email, password } }));
}

/**
 * Enqueue `load-sample` and poll the job every second until it completes.
 * @throws Error when the job fails, or is not done within `timeoutMs`
 */
export async function loadSampleMarket(api: ApiClient, adminToken: string, size: MarketSize, log: (line: string) => void, timeoutMs = 600_000): Promise<void> {
  const job = await api.ok<{ data: { id: string } }>('/api/v1/admin/jobs', { json: { type: 'load-sample', ...size }, token: adminToken });
  const started = performance.now();
  let last = '';
  for (;;) {
    const view = (await api.ok<{ data: JobView }>(`/api/v1/admin/jobs/${job.data.id}`, { token: adminToken })).data;
    if (view.state === 'completed') return;
    if (view.state === 'failed') throw new Error(`loading the sample market failed: ${view.failed_reason ?? 'unknown reason'}`);
    const phase = String((view.progress as { phase?: unknown } | null)?.phase ?? view.state);
    if (phase !== last) log(`  market: ${view.state} ${phase}`);
    last = phase;
    if (performance.now() - started > timeoutMs) throw new Error(`loading the sample market took more than ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
