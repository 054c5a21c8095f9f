/**
 * `screen-complex`: POST /screen with six range filters, an expression and a two-key sort,
 * both request shapes alternating; target p99 < 500 ms.
 */
import { httpRows } from '../http-rows.js';
import { SPEC_TARGETS } from '../targets.js';
import type { Scenario } from '../types.js';
import { restRun } from './rest.js';
import { complexBodies } from './screen-bodies.js';

/** The complex screening scenario. */
export const screenComplex: Scenario = {
  name: 'screen-complex',
  description: 'POST /api/v1/screen with six ranges, an expression and a two-key sort; spec: p99 < 500 ms',
  async run(ctx) {
    const bodies = complexBodies(!ctx.options.cache);
    const token = await ctx.session.token();
    const result = await restRun(
      ctx,
      [
        { kind: 'shape A', method: 'POST', path: '/api/v1/screen', body: bodies.shapeA },
        { kind: 'shape B', method: 'POST', path: '/api/v1/screen', body: bodies.shapeB },
      ],
      { token, trackCache: true },
    );
    return httpRows('screen-complex', result, { percentile: 'p99', target: SPEC_TARGETS.complexScreenP99Ms }, { cacheExpected: ctx.options.cache });
  },
};
