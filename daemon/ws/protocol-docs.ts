/**
 * The WebSocket protocol as served in the API documentation (the `websocket` tag of
 * /openapi.json, rendered by /docs and /redoc): the spec's message tables and the
 * extensions, live screens in full.
 */

/** Markdown description of the WebSocket protocol. */
export const WS_PROTOCOL_DOC = `
**WebSocket** on \`/v1/ws\`, \`/api/v1/ws\` or \`/ws/market\`; \`?token=<access token>\` optional, \`?session_id=\` to restore a session.
Every server message carries \`type\`, \`timestamp\` and \`sequence\` (one counter per session; a \`batch\` frame takes the number before its inner messages).

| Client → server | Fields |
|---|---|
| \`subscribe\` / \`unsubscribe\` | \`subscription_type\` (one of \`stock\`, \`market\`, \`sector\`, \`screen\`); \`targets\` |
| \`subscribe\` (screen) | \`subscription_type: "screen"\` and either \`targets\` (\`preset:<id>\` of yours, \`template:<id>\`; at most 10) with optional \`overrides\` for every \`template:\` target (the body of POST /screen/templates/{id}: \`market\` KOSPI/KOSDAQ/ALL, \`sort\` or \`sort_by\`/\`order\`, \`page\`, \`per_page\` or \`limit\`, \`fields\`; validated like it, unknown keys refused; not \`as_of\`; a \`preset:\` target given them fails, a \`query\` given them is \`INVALID_MESSAGE\`), or \`query\`: a POST /screen body (either shape, \`expression\` included; not \`as_of\`, nor a preset that has one: a live screen follows live prices); optional \`dwell_s\` (whole seconds, 0–3600, default 0): an entry or exit reaches this subscriber only once it has held that long, one that reverts sooner never does |
| \`unsubscribe\` (screen) | \`targets\`: screen ids, or the targets they were subscribed with (a target ends every screen opened with it, whatever its overrides) |
| \`ping\`, \`refresh_token\` {token}, \`reconnect\` {session_id, last_sequence?} | |

| Server → client | Fields |
|---|---|
| \`connected\`, \`reconnected\`, \`subscribed\`, \`unsubscribed\`, \`price_update\`, \`orderbook_update\`, \`market_status\`, \`alert\`, \`error\`, \`pong\`, \`batch\`, \`token_refreshed\` | as in the service interface |
| \`subscribed\` (screen) | \`subscription_type: "screen"\`, \`targets: [source]\`, \`screen_id\`, \`source\` (\`preset:<id>\`, \`template:<id>\` or \`query\`), \`overrides\` (a template's, as applied: market, sort, page, per_page, fields; absent when none), \`members\` (rows: code, name, market, sector, \`price\` and the POST /screen columns of the screen, in its sort order, at most \`per_page\`), \`count\`, \`total\` (matches on every page), \`sort\`, \`page\`, \`per_page\`, \`restored\` (true after a session restore) |
| \`screen_update\` | \`screen_id\`, \`entered\` (rows, as in \`members\`), \`exited\` (codes), \`count\` (members now), \`total\` — sent whenever the members change (with \`dwell_s\`: once a change has held for it), never coalesced |
| \`alert\` (screen) | an alert on a preset's live screen (POST /alerts with \`alert_type\` \`screen_enter\`/\`screen_exit\` and \`preset_id\`): \`alert_type\`, \`preset_id\`, \`code\` (the stock that entered or left), \`current_price\`, \`threshold: null\`, \`message\` |

**Live screens.** Members equal the page \`POST /screen?prices=live\` returns for the same query (a screen on ranks, scores or formula columns:
as of its last re-run, which the daemon schedules within a share of a core, so such members trail the prices by up to a few re-run periods): the indicator snapshot with the
price-dependent fields of every stock that traded recomputed at its live price (close, change, change %, volume, trading value, open/high/low,
market cap, PER, PBR, PSR, POR, PEG, Graham ratio, earnings and dividend yield, EV, EV/EBIT, turnover). A stock pushed out of a top-N by
another is an exit. A new indicator snapshot re-evaluates every screen. With \`dwell_s\`, a \`screen_update\` carries the changes that have held for the dwell
(checked every 250 ms; \`count\` is then the members as told), so a stock hovering at a top-N cut is not reported at all; \`subscribed\` members are always exact and
other subscribers of the same query are unaffected. A bad \`dwell_s\` → \`SUBSCRIPTION_FAILED\` with reason \`invalid_dwell\` and \`details.dwell_s\`. Limits per tier (\`live_screen_limits\`, default free 1, basic 5,
pro 20, enterprise 100, per connection and per user across daemons); over → \`SUBSCRIPTION_FAILED\` with \`details\` {reason:
\`live_screen_limit\`, scope, tier, limit, current}. Unknown or another user's preset (\`unknown_preset\`), unknown template
(\`unknown_template\`), an anonymous connection's custom \`query\` (\`sign_in_required\`: anonymous callers get templates only), a bad query or expression (\`invalid_query\` with \`query.<field>\` details), bad template overrides (\`invalid_query\` with \`overrides.<field>\` details, the messages POST /screen/templates/{id} gives; over the caller's cost budget: \`overrides.limit\`, \`overrides.tier\`), an anonymous connection's \`overrides.sort\` (\`sign_in_required\`: a sort of its own would be a list of its own), a malformed target (\`unknown_targets\`)
→ \`SUBSCRIPTION_FAILED\`; the connection stays usable. A template with overrides is a screen of its own: its members follow the overrides, subscribers whose overrides give the same query share it, others never do; it must fit the
caller's cost budget (the anonymous budget for an anonymous connection), the template alone is the daemon's and is not charged. A restored session gets its live screens back under the same ids, a template's overrides included: \`subscribed\`
(\`restored: true\`) with the current members, then one \`screen_update\` with what entered and left since the disconnect (no replay).
\`GET /screen/live\` lists the caller's live screens on every daemon.
`.trim();
