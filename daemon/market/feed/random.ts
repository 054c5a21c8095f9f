/**
 * A small seeded pseudo-random generator (sfc32 seeded through splitmix32) for the
 * simulator: the same seed gives the same market, and nothing reads Math.random.
 */

/** A seeded random source. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** Exponential with mean 1. */
  exponential(): number;
  /** Integer uniform in [min, max] (both inclusive). */
  int(min: number, max: number): number;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Create a generator from an integer seed. */
export function createRng(seed: number): Rng {
  const init = splitmix32(seed);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4_294_967_296;
  };
  // Discard the first outputs: sfc32 mixes its state over a few rounds.
  for (let i = 0; i < 12; i++) next();
  return {
    next,
    normal() {
      const u = 1 - next(); // (0, 1]: log(0) never happens
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
    exponential: () => -Math.log(1 - next()),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
  };
}
