/**
 * What the daemon's market holds (GET /admin/market), asked before a load that could surprise:
 * real files over the generated sample market are refused here, before a byte is uploaded, and
 * a load the daemon refuses as a mix (409) gets the flag that does what was meant as its hint.
 */
import type { MarketStateView } from '../../../daemon/contract/jobs.js';
import { API_PREFIX } from '../transport/api-client.js';
import { CliError } from '../session/errors.js';
import type { Session } from '../session/session.js';

/** GET /admin/market. @throws CliError FORBIDDEN for a non-admin */
export async function marketState(session: Session): Promise<MarketStateView> {
  return (await session.api.request<MarketStateView>({ path: `${API_PREFIX}/admin/market` })).data;
}

/**
 * Ask the daemon before uploading real files: over the sample market they need --replace-sample.
 * @throws CliError CONFLICT (exit 1) when the load would mix them, before anything is uploaded
 */
export async function refuseMixBeforeUpload(session: Session, replaceSample: boolean): Promise<void> {
  if (replaceSample) return;
  const state = await marketState(session);
  if (state.content !== 'sample') return;
  throw new CliError({
    code: 'CONFLICT',
    message: `the daemon's database holds the generated sample market (${state.stocks.toLocaleString('en-US')} stocks): loading real files would mix them with it; nothing was uploaded`,
    details: { content: state.content, stocks: state.stocks, flag: 'replace_sample', cli_flag: '--replace-sample' },
    hint: 'add --replace-sample to remove the sample market in the same transaction as this load (real files then replace it)',
  });
}

/** A 409 from POST /admin/jobs with the CLI flag that does what was meant as its hint; other errors unchanged. */
export function withMixingHint(err: unknown, command: string): unknown {
  if (!(err instanceof CliError) || err.code !== 'CONFLICT' || typeof err.details.cli_flag !== 'string') return err;
  return new CliError({
    code: err.code, message: err.message, status: err.status, requestId: err.requestId, details: err.details,
    hint: `to do that, run it again with ${err.details.cli_flag}: ${command} ${err.details.cli_flag}`,
  });
}
