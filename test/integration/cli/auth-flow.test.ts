import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type TempEnv } from './fake-io.js';

const PASSWORD = 'correct horse battery';
const credentialsPath = (e: TempEnv) => join(e.root, 'config', 'stockscreen', 'credentials.json');
const readCredentials = async (e: TempEnv) => JSON.parse(await readFile(credentialsPath(e), 'utf8'));

describe('stockscreen register → login → whoami → logout against a real daemon', () => {
  let t: TestDaemon;
  let e: TempEnv;
  let n = 0;
  const email = () => `cli-user-${++n}-${Date.now()}@example.com`;
  const cli = (argv: string[], io = fakeIO()) => run(['--url', t.url, ...argv], io, e.env).then((code) => ({ code, io }));
  const signUp = async (address: string) => {
    expect((await cli(['register', '--email', address, '--password-stdin'], fakeIO({ stdin: PASSWORD }))).code).toBe(0);
    expect((await cli(['login', '--email', address, '--password-stdin'], fakeIO({ stdin: PASSWORD + '\n' }))).code).toBe(0);
  };

  beforeAll(async () => {
    t = await startTestDaemon('cli-auth', { rate_limit: { enabled: false } });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    e = await tempEnv();
  });
  afterEach(() => e.cleanup());

  it('walks the whole flow with piped output and saves credentials with mode 0600', async () => {
    const address = email();
    // When registering with a piped password
    const reg = await cli(['register', '--email', address, '--name', 'Kim', '--password-stdin'], fakeIO({ stdin: `${PASSWORD}\n` }));
    // Then the new account is printed as one TSV row: id, email, name, tier, role, created
    expect(reg.code).toBe(0);
    const [id, shownEmail, name, tier, role] = reg.io.out().trimEnd().split('\t');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect([shownEmail, name, tier, role]).toEqual([address, 'Kim', 'free', 'user']);
    expect(reg.io.err()).toContain('stockscreen login');

    // When logging in, the tokens are saved for the default profile, readable only by the owner
    const login = await cli(['login', '--email', address, '--password-stdin'], fakeIO({ stdin: PASSWORD }));
    expect(login.code).toBe(0);
    expect(login.io.out()).toBe('');
    expect((await stat(credentialsPath(e))).mode & 0o777).toBe(0o600);
    expect((await stat(join(e.root, 'config', 'stockscreen'))).mode & 0o777).toBe(0o700);
    const saved = (await readCredentials(e)).profiles.default;
    expect(saved).toMatchObject({ email: address, url: t.url });

    // whoami piped → the same row; --json → exactly the API body
    const who = await cli(['whoami']);
    expect(who.code).toBe(0);
    expect(who.io.out().trimEnd().split('\t').slice(0, 5)).toEqual([id, address, 'Kim', 'free', 'user']);
    const json = await cli(['--json', 'whoami']);
    const body = JSON.parse(json.io.out());
    const direct = (await (await t.request('/api/v1/users/me', { token: saved.access_token })).json()) as { data: unknown };
    expect(body.status).toBe('success');
    expect(body.data).toEqual(direct.data);
    expect(Object.keys(body).sort()).toEqual(['data', 'meta', 'status']);

    // logout revokes the access token on the server and forgets it locally
    const out = await cli(['logout']);
    expect(out.code).toBe(0);
    expect((await readCredentials(e)).profiles.default).toBeUndefined();
    expect((await t.request('/api/v1/users/me', { token: saved.access_token })).status).toBe(401);
    const refreshed = await t.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: saved.refresh_token } });
    expect(refreshed.status).toBe(401);

    // whoami after logout → authentication required (exit 4) with the login hint
    const after = await cli(['whoami']);
    expect(after.code).toBe(4);
    expect(after.io.out()).toBe('');
    expect(after.io.err()).toMatch(/^error: not logged in/);
    expect(after.io.err()).toContain('hint: run `stockscreen login`');
  });

  it('shows whoami as a label/value view on a terminal, without colour under --no-color or NO_COLOR', async () => {
    const address = email();
    await signUp(address);
    for (const argv of [['--no-color', 'whoami'], ['whoami']]) {
      const env = argv.includes('--no-color') ? e.env : { ...e.env, NO_COLOR: '1' };
      const io = fakeIO({ tty: true, columns: 100 });
      expect(await run(['--url', t.url, ...argv], io, env)).toBe(0);
      const lines = io.out().trimEnd().split('\n');
      expect(lines).toContain(`email    ${address}`);
      expect(lines).toContain('tier     free');
      expect(io.out()).not.toMatch(/\u001b\[/);
    }
  });

  it('prints the server error code, message and request id for a duplicate registration', async () => {
    const address = email();
    await cli(['register', '--email', address, '--password-stdin'], fakeIO({ stdin: PASSWORD }));
    const dup = await cli(['register', '--email', address, '--password-stdin'], fakeIO({ stdin: PASSWORD }));
    expect(dup.code).toBe(1);
    expect(dup.io.err()).toMatch(/^error: An account with this email already exists \(CONFLICT, request [0-9a-f-]{36}\)\n/);
  });

  it('lists each bad field of a rejected registration', async () => {
    const res = await cli(['register', '--email', 'not-an-email', '--password-stdin'], fakeIO({ stdin: 'short' }));
    expect(res.code).toBe(1);
    expect(res.io.err()).toContain('(INVALID_REQUEST, request ');
    expect(res.io.err()).toMatch(/^ {2}email: /m);
    expect(res.io.err()).toMatch(/^ {2}password: must be at least 10 characters$/m);
  });

  it('answers a wrong password with exit 4 and the server message', async () => {
    const address = email();
    await cli(['register', '--email', address, '--password-stdin'], fakeIO({ stdin: PASSWORD }));
    const res = await cli(['login', '--email', address, '--password-stdin'], fakeIO({ stdin: 'wrong password!' }));
    expect(res.code).toBe(4);
    expect(res.io.err()).toMatch(/^error: Invalid email or password \(UNAUTHORIZED, request [0-9a-f-]{36}\)/);
  });

  it('refuses to prompt when not on a terminal and names the flags to pass', async () => {
    const res = await cli(['login']);
    expect(res.code).toBe(2);
    expect(res.io.err()).toContain('--email');
    expect(res.io.err()).toContain('--password-stdin');
  });

  it('prompts for email and a hidden password on a terminal', async () => {
    const address = email();
    await cli(['register', '--email', address, '--password-stdin'], fakeIO({ stdin: PASSWORD }));
    const io = fakeIO({ tty: true, answers: [address, PASSWORD] });
    const res = await cli(['login'], io);
    expect(res.code).toBe(0);
    expect(io.asked).toEqual([{ label: 'Email' }, { label: 'Password', secret: true }]);
    expect((await readCredentials(e)).profiles.default.email).toBe(address);
  });

  it('exits 2 when the user cancels a prompt', async () => {
    const res = await cli(['login'], fakeIO({ tty: true, answers: [null] }));
    expect(res.code).toBe(2);
    expect(res.io.err()).toContain('cancelled');
  });

  it('keeps profiles apart (--profile and STOCKSCREEN_PROFILE)', async () => {
    const alice = email();
    const bob = email();
    await signUp(alice);
    await cli(['register', '--email', bob, '--password-stdin'], fakeIO({ stdin: PASSWORD }));
    await cli(['--profile', 'work', 'login', '--email', bob, '--password-stdin'], fakeIO({ stdin: PASSWORD }));
    expect((await cli(['whoami'])).io.out()).toContain(alice);
    expect((await cli(['--profile', 'work', 'whoami'])).io.out()).toContain(bob);
    const viaEnv = fakeIO();
    await run(['--url', t.url, 'whoami'], viaEnv, { ...e.env, STOCKSCREEN_PROFILE: 'work' });
    expect(viaEnv.out()).toContain(bob);
    // Logging out of one profile leaves the other, and the hint names the profile to log in again
    await cli(['--profile', 'work', 'logout']);
    expect(Object.keys((await readCredentials(e)).profiles)).toEqual(['default']);
    const gone = await cli(['--profile', 'work', 'whoami']);
    expect(gone.code).toBe(4);
    expect(gone.io.err()).toBe('error: not logged in (profile work) (NOT_LOGGED_IN)\nhint: run `stockscreen --profile work login`\n');
  });

  it('uses the URL saved with the profile when --url is not given', async () => {
    const address = email();
    await signUp(address);
    const io = fakeIO();
    expect(await run(['whoami'], io, e.env)).toBe(0);
    expect(io.out()).toContain(address);
  });
});
