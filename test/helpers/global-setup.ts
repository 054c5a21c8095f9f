/**
 * Vitest global setup: makes sure a Redis is reachable for the suite. Uses
 * STOCKSCREEN_TEST_REDIS_URL / REDIS_URL / redis://127.0.0.1:6379 when one answers;
 * otherwise starts a private `redis-server` on a free port (no persistence) for this run.
 * Each test file then works under its own key prefix, so other keys are never touched.
 */
import type { TestProject } from 'vitest/node';
import { ensureBenchRedis } from '../../loadtest/bench/redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    redisServerBin: string | null;
  }
}

async function which(bin: string): Promise<string | null> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => execFile('sh', ['-c', `command -v ${bin}`], (err, out) => resolve(err ? null : out.trim() || null)));
}

export default async function setup(project: TestProject) {
  project.provide('redisServerBin', await which('redis-server'));
  // Same rule as `npm run bench`: the Redis that answers, else a private redis-server.
  const redis = await ensureBenchRedis({ REDIS_URL: process.env.STOCKSCREEN_TEST_REDIS_URL ?? process.env.REDIS_URL });
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
