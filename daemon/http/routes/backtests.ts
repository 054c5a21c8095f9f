/**
 * Backtest endpoints: POST /screen/backtest runs or queues a run; GET /screen/backtests
 * lists the caller's runs; GET /screen/backtests/{id} follows one; DELETE cancels it (another
 * user's run is a 404).
 */
import { z } from 'zod';
import type { BacktestService } from '../../backtest/backtest-service.js';
import { BacktestRequest, BacktestRun } from '../../contract/backtests.js';
import { notFound } from '../../errors.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.string().uuid({ error: 'must be a backtest id' }) });
const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

/** Register the backtest routes. */
export function registerBacktestRoutes(api: ApiBuilder, deps: { backtests: BacktestService }): void {
  const tags = ['backtests'];
  api.route(
    {
      method: 'post', path: '/screen/backtest', summary: 'Backtest a screen: rebalance to its top N and trade at the next open', tags, access: 'user',
      description:
        'Runs with at most 6 rebalance dates answer 200 with the completed (or failed) run; longer ones answer 202 with the run (status queued): ' +
        'a worker of any daemon runs it; follow it at GET /screen/backtests/{id} (queued → running with done/total → completed or failed; `phase` says what it is doing before its first date: reading_history, building_series, screening). ' +
        'When this daemon has not read the market history yet (the first run after a start or a load), the answer does not wait for it beyond `backtest_plan_wait_ms`: ' +
        '202 with the run queued in phase reading_history (total 0); the run is planned once the history is in, and a request it then refuses (dates outside the loaded history) fails with the reason in `error`. ' +
        'Each user may have `backtest_limits` (by tier: free 2, basic 3, pro 5, enterprise 10) runs queued or running: over → 403 FORBIDDEN with details {tier, limit, active}; ' +
        'a full queue (`backtest_queue_max`) or an unreachable one → 503. ' +
        'See daemon/backtest/README.md for the trading rules (next-open fills, halts, ±30% limits, delistings, fees and the 0.20% sell tax).',
      body: BacktestRequest, response: BacktestRun, status: 202, bodyLimit: 64 * 1024, errors: [403, 503],
    },
    async (req, res) => {
      const run = await deps.backtests.start({ id: req.user!.id, tier: req.user!.tier }, req.valid.body);
      sendSuccess(req, res, run, { status: run.status === 'queued' ? 202 : 200 });
    },
  );
  api.route(
    { method: 'get', path: '/screen/backtests', summary: 'Your backtest runs, newest first (without results)', tags, access: 'user', query: listQuery, response: z.array(BacktestRun) },
    async (req, res) => {
      const { limit } = req.valid.query;
      const runs = await deps.backtests.list(req.user!.id, limit);
      sendSuccess(req, res, runs, { meta: { total: runs.length } });
    },
  );
  api.route(
    { method: 'get', path: '/screen/backtests/:id', summary: 'One backtest run: progress, then the result', tags, access: 'user', params: idParams, response: BacktestRun, errors: [404] },
    async (req, res) => {
      const { id } = req.valid.params;
      const run = await deps.backtests.get(req.user!.id, id);
      if (!run) throw notFound('Backtest', { id });
      sendSuccess(req, res, run);
    },
  );
  api.route(
    {
      method: 'delete', path: '/screen/backtests/:id', summary: 'Cancel a queued or running backtest (kept, status cancelled)', tags, access: 'user', params: idParams,
      description: 'A queued run leaves the queue; a running one stops at its next rebalance date. Answers the run (status cancelled). A run that already ended → 409.',
      response: BacktestRun, errors: [404, 409],
    },
    async (req, res) => {
      const { id } = req.valid.params;
      const run = await deps.backtests.cancel(req.user!.id, id);
      if (!run) throw notFound('Backtest', { id });
      sendSuccess(req, res, run);
    },
  );
}
