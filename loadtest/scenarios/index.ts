/** Every scenario by name. */
import type { ScenarioName } from '../options.js';
import type { Scenario } from '../types.js';
import { authGet } from './auth-get.js';
import { authLogin } from './auth-login.js';
import { httpBaseline } from './http-baseline.js';
import { rateLimit } from './rate-limit.js';
import { screenComplex } from './screen-complex.js';
import { screenSimple } from './screen-simple.js';
import { stocksMixed } from './stocks-mixed.js';
import { wsFanout } from './ws-fanout.js';
import { wsReconnectStorm } from './ws-reconnect-storm.js';

/** The scenario registry. */
export const SCENARIOS: Readonly<Record<ScenarioName, Scenario>> = Object.freeze({
  'screen-simple': screenSimple,
  'screen-complex': screenComplex,
  'stocks-mixed': stocksMixed,
  'auth-login': authLogin,
  'rate-limit': rateLimit,
  'ws-fanout': wsFanout,
  'ws-reconnect-storm': wsReconnectStorm,
  'auth-get': authGet,
  'http-baseline': httpBaseline,
});
