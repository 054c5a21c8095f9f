/** Everything the daemon built, by area, flattened for tests and feature wiring. */
import type { MarketJobs } from '../jobs/market-jobs.js';
import type { AuthParts } from './auth.js';
import type { CoreParts } from './core.js';
import type { HttpParts } from './http.js';
import type { MarketParts, ScreeningParts } from './market.js';
import type { NotifyParts } from './notify.js';
import type { RealtimeParts } from './realtime.js';
import type { SourceParts } from './sources.js';

/** The built daemon's parts. */
export type DaemonContext = CoreParts & AuthParts & MarketParts & Omit<ScreeningParts, 'parts'> & { parts: MarketParts } & RealtimeParts & HttpParts & { jobs: MarketJobs; notify: NotifyParts; sources: SourceParts };
