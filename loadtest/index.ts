/**
 * The load-test kit's public surface, for `stockscreen loadtest` and embedding:
 * `runLoadtest(options, hooks)` → Report, `formatReport(report)` → text table.
 */
export { runLoadtest, type LoadtestHooks } from './runner.js';
export { formatReport, formatMeasured, formatTarget } from './report.js';
export { checkTarget, isLoopbackHost } from './guard.js';
export { parseDuration, resolveOptions, SCENARIO_NAMES, EXTRA_SCENARIO_NAMES, LIMITS, type LoadtestOptions, type ScenarioName } from './options.js';
export { SPEC_TARGETS, evaluate } from './targets.js';
export type { Report, ReportRow, ProgressEvent, ProgressListener, ScenarioStatus, ScenarioSummary, Target } from './types.js';
export type { TickSource } from './ws/tick-source.js';
export { SCENARIOS } from './scenarios/index.js';
