/**
 * `http-baseline`: GET / against a bare `node:http` server answering a fixed JSON body
 * (started by `npm run bench`): the ceiling the machine allows, for reading the REST
 * figures as a fraction of it.
 */
import { httpRows } from '../http-rows.js';
import type { Scenario } from '../types.js';
import { restRun } from './rest.js';

/** The bare-server baseline scenario. */
export const httpBaseline: Scenario = {
  name: 'http-baseline',
  description: 'GET / against a bare node:http server with a fixed JSON body (the machine’s ceiling)',
  async run(ctx) {
    const result = await restRun(ctx, [{ method: 'GET', path: '/' }], { token: null });
    return httpRows('http-baseline', result);
  },
};
