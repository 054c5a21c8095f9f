import type { Migration } from './index.js';

const sql = `
ALTER TABLE alerts ADD COLUMN membership TEXT CHECK (membership IN ('conditions', 'page'));
ALTER TABLE alerts ADD COLUMN dwell_s INTEGER CHECK (dwell_s >= 0);
UPDATE alerts SET membership = 'page', dwell_s = 0 WHERE preset_id IS NOT NULL;
`;

/**
 * How a screen alert decides that a stock entered or left its preset's screen: `membership`
 * (`conditions`: the stock meets the preset's filters and expression, wherever its sort puts
 * it; `page`: the stock is on the preset's first page, its top-N cut) and `dwell_s` (seconds a
 * change must hold before it counts, so a stock hovering at the edge does not chatter). Price
 * alerts have neither (null). Screen alerts made before keep what they did: the page, counted
 * at once.
 */
export const m024ScreenAlertMembership: Migration = {
  id: 24,
  name: 'screen-alert-membership',
  sqlite: sql,
  postgres: sql,
};
