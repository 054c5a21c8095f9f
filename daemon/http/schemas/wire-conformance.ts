/**
 * Compile-time checks that the response schemas the OpenAPI document is generated from
 * describe the wire contract (daemon/contract/): every contract type fits its schema, and
 * has no top-level field the schema leaves undocumented. A drift fails `tsc`; nothing runs here.
 */
import type { z } from 'zod';
import type { Alert, AlertFiring } from '../../contract/alerts.js';
import type { LoadtestExemption, PublicUser, TokenPair } from '../../contract/users.js';
import type { exemptionSchema } from '../routes/admin-loadtest.js';
import type { alertSchema, eventSchema } from '../routes/alerts.js';
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
