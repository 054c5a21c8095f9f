/**
 * Compile-time checks that the response schemas the OpenAPI document is generated from
 * describe the wire contract (daemon/contract/): every contract type fits its schema, and
 * has no top-level field the schema leaves undocumented. A drift fails `tsc`; nothing runs here.
 */
import type { z } from 'zod';
import type { Alert, AlertFiring } from '../../contract/alerts.js';
import type { Holding, Performance, PortfolioTotals, PortfolioTransaction, ValuedHolding } from '../../contract/portfolio.js';
import type { LoadtestExemption, PublicUser, TokenPair } from '../../contract/users.js';
import type { exemptionSchema } from '../routes/admin-loadtest.js';
import type { alertSchema, eventSchema } from '../routes/alerts.js';
import type { holdingSchema, holdingView, performanceSchema, totals, transactionSchema } from '../routes/portfolio.js';
import type { publicUserSchema, tokenPairSchema } from './users.js';

type Assert<T extends true> = T;
/** True when `Wire` fits the documented shape `Doc` and every top-level field of `Wire` is documented. */
type Documents<Wire, Doc> = [Wire] extends [Doc] ? ([Exclude<keyof Wire, keyof Doc>] extends [never] ? true : false) : false;

/** Users, tokens and load-test exemptions are documented as sent. */
export type UsersDocumented = [
  Assert<Documents<PublicUser, z.output<typeof publicUserSchema>>>,
  Assert<Documents<TokenPair, z.output<typeof tokenPairSchema>>>,
  Assert<Documents<LoadtestExemption, z.output<typeof exemptionSchema>>>,
];
/** Alerts and firings are documented as sent. */
export type AlertsDocumented = [Assert<Documents<Alert, z.output<typeof alertSchema>>>, Assert<Documents<AlertFiring, z.output<typeof eventSchema>>>];
/** The portfolio's holdings, totals, trades and performance are documented as sent. */
export type PortfolioDocumented = [
  Assert<Documents<Holding, z.output<typeof holdingSchema>>>,
  Assert<Documents<ValuedHolding, z.output<typeof holdingView>>>,
  Assert<Documents<PortfolioTotals, z.output<typeof totals>>>,
  Assert<Documents<PortfolioTransaction, z.output<typeof transactionSchema>>>,
  Assert<Documents<Performance, z.output<typeof performanceSchema>>>,
];
