/** The wire contract in one import: every response, request body and message type the daemon and the CLI share. */
export * from './alerts.js';
export * from './backtests.js';
export * from './envelope.js';
export * from './errors.js';
export * from './health.js';
export * from './jobs.js';
export * from './notify.js';
export * from './portfolio.js';
export * from './presets.js';
export * from './screening.js';
export * from './stocks.js';
export * from './users.js';
export * from './ws.js';
export * from './sources.js';
