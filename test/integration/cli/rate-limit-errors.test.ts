/** A 429 in the CLI names the limit, when it frees up and the way out. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type TempEnv } from './fake-io.js';

describe('429 in the CLI', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const cli = async (argv: string[], stdin?: string) => {
    const io = fakeIO({ stdin });
    return { code: await run(['--url', t.url, ...argv], io, e.env), io };
  };

  beforeAll(async () => {
    // A free tier of 3 requests an hour: the fourth call is refused.
    t = await startTestDaemon('cli-429', { rate_limit: { enabled: true, tiers: { free: { per_hour: 3 } } } });
    e = await tempEnv();
    expect((await cli(['register', '--email', 'r@example.com', '--password-stdin'], 'correct horse battery')).code).toBe(0);
    expect((await cli(['login', '--email', 'r@example.com', '--password-stdin'], 'correct horse battery')).code).toBe(0);
  });
  afterAll(async () => {
    await e.cleanup();
    await t.close();
  });

  it('prints the limit hit, when it frees up as a duration, and asks for a higher tier', async () => {
    // Given the hourly quota spent
    for (let i = 0; i < 3; i++) await cli(['whoami']);
    // When one more command runs
    const { code, io } = await cli(['whoami']);
    // Then the user reads which limit, when it frees and what to do
    expect(code).toBe(1);
    const err = io.err();
    expect(err).toMatch(/^error: Rate limit exceeded \(RATE_LIMIT_EXCEEDED, request \S+\)$/m);
    expect(err).toContain('  limit: Maximum 3 requests per hour allowed for free tier');
    expect(err).toMatch(/^ {2}frees up in (\d+h)?(\d+m)?(\d+s)? \(Retry-After: \d+ s\)$/m);
    expect(err).toMatch(/^hint: wait \S+ and retry, or ask an admin for a higher tier \(`stockscreen admin users set-tier <your email> pro`\)/m);
    expect(err).not.toContain('answered HTTP 429');
  });
});
