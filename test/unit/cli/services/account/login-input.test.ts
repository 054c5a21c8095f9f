import { describe, expect, it } from 'vitest';
import { collectLogin } from '../../../../../cli/services/account/login-input.js';
import type { Session } from '../../../../../cli/services/session/session.js';
import { fakeIO } from '../../../../integration/cli/fake-io.js';

/**
 * collectLogin uses io, the prompter, and the API once (GET /health: is the daemon up before
 * anything is asked; test/integration/cli/unreachable-and-help.test.ts covers a daemon that is down).
 */
const sessionFor = (io: ReturnType<typeof fakeIO>) => ({
  io, prompter: () => io.prompter!, api: { request: async () => ({ status: 200, data: { status: 'healthy' }, body: {} }) },
}) as unknown as Session;

describe('collectLogin', () => {
  it('reads the password from stdin, dropping one trailing newline', async () => {
    const io = fakeIO({ stdin: 'pa ss\n' });
    expect(await collectLogin(sessionFor(io), { email: 'a@example.com', passwordStdin: true }, { command: 'login' })).toEqual({ email: 'a@example.com', password: 'pa ss' });
  });

  it('needs --email with --password-stdin, and a non-empty stdin', async () => {
    await expect(collectLogin(sessionFor(fakeIO({ stdin: 'x' })), { passwordStdin: true }, { command: 'login' })).rejects.toMatchObject({ exitCode: 2, message: '--password-stdin needs --email' });
    await expect(collectLogin(sessionFor(fakeIO({ stdin: '\n' })), { email: 'a@example.com', passwordStdin: true }, { command: 'login' })).rejects.toMatchObject({ exitCode: 2 });
  });

  it('does not prompt unless both stdin and stdout are terminals, and names the flags', async () => {
    const io = fakeIO({ answers: ['never asked'] });
    const err = await collectLogin(sessionFor(io), {}, { command: 'register' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: 2 });
    expect((err as Error).message).toContain('--email and --password-stdin');
    expect(io.asked).toEqual([]);
  });

  it('asks twice for a new password and rejects a mismatch', async () => {
    const io = fakeIO({ tty: true, answers: ['a@example.com', 'first-pass', 'other-pass'] });
    await expect(collectLogin(sessionFor(io), {}, { command: 'register', confirm: true })).rejects.toMatchObject({ message: 'the passwords do not match' });
    expect(io.asked.map((q) => q.label)).toEqual(['Email', 'Password', 'Repeat password']);
    expect(io.asked.slice(1).every((q) => q.secret)).toBe(true);
  });

  it('skips the email prompt when --email is given', async () => {
    const io = fakeIO({ tty: true, answers: ['pw-123456'] });
    expect(await collectLogin(sessionFor(io), { email: 'b@example.com' }, { command: 'login' })).toEqual({ email: 'b@example.com', password: 'pw-123456' });
    expect(io.asked).toEqual([{ label: 'Password', secret: true }]);
  });
});
