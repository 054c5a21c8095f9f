/**
 * One turn of a stored run, as the worker that took its job (or this process) runs it: claim the
 * row, plan the stored request again, screen its dates with each phase and date written to the
 * row (a row found cancelled stops the run), then store the result or the error. A daemon
 * stopping mid-run hands the run on when it can.
 */
import type { BacktestStatus } from '../store/backtests-repo.js';
import { planBacktest } from './plan.js';
import type { BacktestJob, BacktestServiceDeps, RunHooks } from './ports.js';
import type { BacktestRequest } from '../contract/backtests.js';
import { executePlan, RunCancelled, RunInterrupted, RunYielded } from './run.js';

/** An error's text as a run's `error` shows it. */
export const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Run `job`; `handOn`: when this daemon stops mid-run (`stopping`), queue it again for another
 * worker (else it fails). Resolves with how it ended.
 * @throws RunInterrupted when handed on
 */
export async function runJob(deps: BacktestServiceDeps, job: BacktestJob, hooks: RunHooks, handOn: boolean, stopping: () => boolean): Promise<BacktestStatus> {
  if (stopping()) throw new RunInterrupted();
  const stored = await deps.repo.get(job.user_id, job.id);
  if (!stored || !(await deps.repo.claim(job.id))) return stored?.status ?? 'cancelled';
  let done = 0;
  try {
    // Checked against the owner's budget when it was asked for.
    const p = await planBacktest(deps, stored.request as BacktestRequest, job.preset_query ?? undefined, 'trusted');
    const result = await executePlan(deps.asOf, p, {
      stopping,
      async onPhase(phase) {
        if (!(await deps.repo.phase(job.id, phase))) throw new RunCancelled();
        await hooks.onPhase?.(phase, done, p.signals);
      },
      checkpoint: hooks.checkpoint,
      ...(hooks.yieldAfter === undefined ? {} : { yieldAfter: hooks.yieldAfter, resumeAfter: stored.done }),
      async onProgress(now, total) {
        if (!(await deps.repo.progress(job.id, now, total))) throw new RunCancelled();
        done = now;
        await hooks.onProgress?.(now, total);
      },
    });
    await deps.repo.finish(job.id, { result });
    return 'completed';
  } catch (err) {
    if (err instanceof RunCancelled) return 'cancelled';
    if (err instanceof RunInterrupted && handOn) {
      // A turn that ended keeps its progress (the next turn resumes after it); a stop starts over from the checkpoint.
      await deps.repo.requeue(job.id, err instanceof RunYielded ? done : 0);
      throw err;
    }
    deps.onError?.(err, job.id);
    await deps.repo.finish(job.id, { error: errorMessage(err) });
    return 'failed';
  }
}
