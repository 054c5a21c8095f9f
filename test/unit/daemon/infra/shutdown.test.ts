/** Shutdown steps run in their written order, past failures and past a step that overruns the deadline, each logged with its step. */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../daemon/infra/logger.js';
import { runShutdownSteps } from '../../../../daemon/infra/shutdown.js';

describe('runShutdownSteps', () => {
  it('runs every step in order, logs a failing one by name and goes on', async () => {
    const lines: string[] = [];
    const logger = createLogger('debug', { write: (s: string) => void lines.push(s) });
    const ran: string[] = [];
    await runShutdownSteps(
      [
        ['ws', async () => void ran.push('ws')],
        ['jobs', async () => {
          ran.push('jobs');
          throw new Error('worker did not stop');
        }],
        ['database', async () => void ran.push('database')],
      ],
      logger,
    );
    expect(ran).toEqual(['ws', 'jobs', 'database']);
    const failures = lines.map((l) => JSON.parse(l) as { msg: string; step?: string; err?: string }).filter((l) => l.msg === 'shutdown step failed');
    expect(failures).toEqual([expect.objectContaining({ step: 'jobs', err: 'worker did not stop' })]);
  });

  it('with a deadline, leaves a step that never finishes behind and still runs the steps after it', async () => {
    // Given a step that waits for something that never happens (a server gone), between two that finish
    const lines: string[] = [];
    const logger = createLogger('debug', { write: (s: string) => void lines.push(s) });
    const ran: string[] = [];
    const remaining: number[] = [];
    // When the steps run with a deadline shortly ahead
    await runShutdownSteps(
      [
        ['http', async () => void ran.push('http')],
        ['jobs', (ms) => (remaining.push(ms), ran.push('jobs'), new Promise(() => undefined))],
        ['database', async () => void ran.push('database')],
      ],
      logger,
      { deadline: Date.now() + 200, lateStepMs: 20 },
    );
    // Then every step ran, the hung one was told its time and reported as left behind
    expect(ran).toEqual(['http', 'jobs', 'database']);
    expect(remaining[0]).toBeGreaterThan(0);
    expect(remaining[0]).toBeLessThanOrEqual(200);
    const failures = lines.map((l) => JSON.parse(l) as { msg: string; step?: string; err?: string }).filter((l) => l.msg === 'shutdown step failed');
    expect(failures).toEqual([expect.objectContaining({ step: 'jobs', err: expect.stringContaining('left behind') })]);
  });
});
