import { describe, expect, it } from 'vitest';
import { prettyLine, wantsPretty } from '../../../../daemon/infra/log-format.js';
import { createLogger } from '../../../../daemon/infra/logger.js';
import { prettyDestination } from '../../../../daemon/infra/log-format.js';

describe('daemon log lines', () => {
  it('are readable on a terminal: time, level, message, then the fields', () => {
    // Given what pino writes
    const json = JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 2, 3, 4, 5), service: 'stockscreend', pid: 1, url: 'http://127.0.0.1:8000', msg: 'stockscreend listening on http://127.0.0.1:8000' });
    // Then the line a person reads
    expect(prettyLine(json, false)).toMatch(/^\d\d:\d\d:\d\d INFO {2}stockscreend listening on http:\/\/127\.0\.0\.1:8000 {2}url=http:\/\/127\.0\.0\.1:8000$/);
    expect(prettyLine(JSON.stringify({ level: 40, time: 0, msg: 'slow', err: 'Command timed out' }), false)).toContain('WARN  slow  err="Command timed out"');
    // And coloured only when asked
    expect(prettyLine(json, true)).toContain('\u001b[32mINFO \u001b[0m');
    expect(prettyLine('not json', false)).toBe('not json');
  });

  it('are JSON when not on a terminal or with --log-format json, pretty with --log-format pretty', () => {
    expect([wantsPretty('auto', true), wantsPretty('auto', false), wantsPretty('auto', undefined), wantsPretty('json', true), wantsPretty('pretty', false)]).toEqual([true, false, false, false, true]);
  });

  it('go through pino to the pretty destination with secrets still redacted', () => {
    let out = '';
    createLogger('info', prettyDestination({ write: (s: string) => (out += s) }, false)).info({ password: 'hunter22' }, 'login');
    expect(out).toMatch(/INFO {2}login {2}password="?\[redacted\]"?\n$/);
  });
});
