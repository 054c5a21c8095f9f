/**
 * The body of `POST /screen/backtest`: which screen (exactly one of a query, a saved
 * preset or a template), the period, and the trading rules, with their defaults and bounds.
 */
import { z } from 'zod';
import { MARKETS } from '../kernel/records.js';
import { DEFAULT_CAPITAL, DEFAULT_FEE_BPS, KRX_SELL_TAX_BPS, REBALANCE_PERIODS, WEIGHTINGS } from './types.js';

/** Most stocks a rebalance may hold. */
export const MAX_TOP = 500;
/** Most top-level keys of a query (as for presets). */
export const MAX_QUERY_KEYS = 500;
/** Largest cost rate accepted, in basis points (10%). */
export const MAX_BPS = 1000;

const date = z.string({ error: 'must be a date YYYY-MM-DD' }).regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date YYYY-MM-DD, e.g. 2025-01-02' });
const bps = (fallback: number, what: string) =>
  z.number({ error: 'must be a number of basis points' }).min(0, { error: 'must be ≥ 0' }).max(MAX_BPS, { error: `must be at most ${MAX_BPS}` }).default(fallback).describe(what);

/** The request body; cross-field rules (one screen source, from < to, the loaded range) are checked by the service. */
export const backtestRequestSchema = z
  .strictObject({
    query: z.record(z.string().max(100), z.unknown(), { error: 'must be a screening request object (shape A or B)' })
      .refine((q) => Object.keys(q).length <= MAX_QUERY_KEYS, { error: `must have at most ${MAX_QUERY_KEYS} keys` })
      .meta({ maxProperties: MAX_QUERY_KEYS })
      .optional()
      .describe('A screening request (either shape; no as_of: the rebalance dates set it). Give exactly one of query, preset_id, template.'),
    preset_id: z.string().min(1).max(100).optional().describe('One of your saved presets.'),
    template: z.string().regex(/^[a-z0-9-]{1,64}$/, { error: 'must be a template id such as value' }).optional().describe('A predefined screen (GET /screen/templates).'),
    market: z.enum(['KOSPI', 'KOSDAQ', 'ALL'], { error: 'must be KOSPI, KOSDAQ or ALL' }).optional().describe('With template: override its market.'),
    from: date.describe('First rebalance date (the last trading day on or before it).'),
    to: date.optional().describe('Last valuation date (default: the last loaded date).'),
    rebalance: z.enum(REBALANCE_PERIODS, { error: 'must be weekly, monthly or quarterly' }).default('monthly'),
    top: z.union([z.int({ error: 'must be an integer' }).min(1, { error: 'must be at least 1' }).max(MAX_TOP, { error: `must be at most ${MAX_TOP}` }), z.literal('all')], { error: `must be an integer 1–${MAX_TOP} or "all"` })
      .default(20).describe('Hold the first N by the screen\'s sort, or "all" members.'),
    weighting: z.enum(WEIGHTINGS, { error: 'must be equal or market_cap' }).default('equal'),
    fee_bps: bps(DEFAULT_FEE_BPS, 'Brokerage fee per side, basis points (default 1.5 = 0.015%).'),
    tax_bps: bps(KRX_SELL_TAX_BPS, 'Tax on sells, basis points (default 20 = 0.20%, the KRX securities transaction tax since 2026).'),
    slippage_bps: bps(0, 'Price slippage per fill, basis points (buys above, sells below the open).'),
    benchmark: z.enum(MARKETS, { error: 'must be KOSPI or KOSDAQ' }).default('KOSPI'),
    capital: z.number({ error: 'must be a number' }).min(1e5, { error: 'must be at least 100,000' }).max(1e13, { error: 'must be at most 10,000,000,000,000' }).default(DEFAULT_CAPITAL),
  })
  .meta({ id: 'BacktestRequest', example: { template: 'value', from: '2025-01-02', rebalance: 'monthly', top: 20 } });

/** A validated body. */
export type BacktestRequest = z.output<typeof backtestRequestSchema>;
