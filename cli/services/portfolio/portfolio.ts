/**
 * The portfolio over the REST API: holdings valued at current prices, adding
 * and removing lots, and performance; and how they are shown (P&L cells carry their
 * movement so the terminal colours them: red = gain, blue = loss, Korean convention).
 */
import type { AddedHolding, Holding, NewHolding, Performance, PortfolioOverview } from '../../../daemon/contract/portfolio.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { isFullId, matchIdPrefix } from '../output/id-prefix.js';
import type { Session } from '../session/session.js';

/** GET /portfolio. */
export function getPortfolio(session: Session): Promise<ApiResponse<PortfolioOverview>> {
  return session.api.request<PortfolioOverview>({ path: `${API_PREFIX}/portfolio` });
}

/**
 * POST /portfolio/holdings (merged into the same stock's lot unless `separate_lot`).
 * @throws CliError INVALID_REQUEST with the bad fields in details (or an unknown stock)
 */
export function addHolding(session: Session, body: NewHolding): Promise<ApiResponse<AddedHolding>> {
  return session.api.request<AddedHolding>({ method: 'POST', path: `${API_PREFIX}/portfolio/holdings`, body });
}

/**
 * DELETE /portfolio/holdings/{id}.
 * @throws CliError NOT_FOUND (also for another user's holding)
 */
export async function removeHolding(session: Session, id: string): Promise<void> {
  await session.api.request({ method: 'DELETE', path: `${API_PREFIX}/portfolio/holdings/${encodeURIComponent(id)}` });
}

/**
 * The id of the caller's holding named by its id or a unique prefix.
 * @throws CliError NOT_FOUND, or USAGE for a short or ambiguous prefix
 */
export async function resolveHoldingId(session: Session, ref: string): Promise<string> {
  if (isFullId(ref)) return ref;
  return matchIdPrefix(ref, (await getPortfolio(session)).data.holdings.map((h) => h.id), 'holding');
}

/** GET /portfolio/performance (`series` adds the daily value series). */
export function getPerformance(session: Session, series: boolean): Promise<ApiResponse<Performance>> {
  return session.api.request<Performance>({ path: `${API_PREFIX}/portfolio/performance`, query: { series: series ? 'true' : undefined } });
}
