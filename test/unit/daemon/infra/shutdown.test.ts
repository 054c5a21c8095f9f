/** Shutdown steps run in their written order and past failures, each failure logged with its step. */
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
});
