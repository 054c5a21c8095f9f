/** `stocks-mixed`: the stock endpoints in turn (list, detail, price, history) over the largest stocks. */
import { httpRows, kindRows } from '../http-rows.js';
import type { Scenario } from '../types.js';
import { restRun } from './rest.js';

/** Stocks the detail, price and history requests rotate over. */
const POOL = 100;

/** The mixed stock-endpoint scenario. */
export const stocksMixed: Scenario = {
  name: 'stocks-mixed',
  description: 'GET /stocks, /stocks/{code}, /stocks/{code}/price, /stocks/{code}/history in turn',
  async run(ctx) {
    const token = await ctx.session.token();
    const codes = await ctx.session.stockCodes(POOL);
    let i = 0;
    const code = () => codes[i++ % codes.length]!;
    let page = 0;
    const pages = Math.max(1, Math.ceil(codes.length / 50));
    const result = await restRun(
      ctx,
      [
        { kind: 'list', method: 'GET', path: () => `/api/v1/stocks?limit=50&page=${(page++ % pages) + 1}` },
        { kind: 'detail', method: 'GET', path: () => `/api/v1/stocks/${code()}` },
        { kind: 'price', method: 'GET', path: () => `/api/v1/stocks/${code()}/price` },
        { kind: 'history', method: 'GET', path: () => `/api/v1/stocks/${code()}/history?limit=120` },
      ],
      { token },
    );
    return [...httpRows('stocks-mixed', result), ...kindRows('stocks-mixed', result)];
  },
};
