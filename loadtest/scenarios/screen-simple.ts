/** `screen-simple`: POST /screen with one filter, both request shapes alternating; target p95 < 200 ms. */
import { httpRows } from '../http-rows.js';
import { SPEC_TARGETS } from '../targets.js';
import type { Scenario } from '../types.js';
import { restRun } from './rest.js';
import { simpleBodies } from './screen-bodies.js';

/** The simple screening scenario. */
export const screenSimple: Scenario = {
  name: 'screen-simple',
  description: 'POST /api/v1/screen with one filter (shapes A and B alternating); spec: p95 < 200 ms',
  async run(ctx) {
    const bodies = simpleBodies(!ctx.options.cache);
    const token = await ctx.session.token();
    const result = await restRun(
      ctx,
      [
        { kind: 'shape A', method: 'POST', path: '/api/v1/screen', body: bodies.shapeA },
        { kind: 'shape B', method: 'POST', path: '/api/v1/screen', body: bodies.shapeB },
      ],
      { token, trackCache: true },
    );
    return httpRows('screen-simple', result, { percentile: 'p95', target: SPEC_TARGETS.simpleScreenP95Ms }, { cacheExpected: ctx.options.cache });
  },
};
