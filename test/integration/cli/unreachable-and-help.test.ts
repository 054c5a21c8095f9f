import { createServer } from 'node:net';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../../cli/commands/context.js';
import { run } from '../../../cli/main.js';
import { createProgram } from '../../../cli/program.js';
import { fakeIO, tempEnv, type TempEnv } from './fake-io.js';

/** A port nothing listens on: bind one, then release it. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Paths of every command of the program, derived from the program itself. */
function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

describe('daemon unreachable', () => {
  let e: TempEnv;
  let url: string;
  beforeAll(async () => {
    e = await tempEnv();
    url = `http://127.0.0.1:${await closedPort()}`;
  });
  afterAll(() => e.cleanup());

  it('login and register on a terminal say the daemon is down before asking for anything', async () => {
    for (const command of ['login', 'register']) {
      // Given a terminal where the user would answer the prompts
      const io = fakeIO({ tty: true, answers: ['me@example.com', 'a password', 'a password'] });
      // When logging in to a daemon that is not running
      const code = await run(['--url', url, command], io, e.env);
      // Then no prompt was shown: the error comes first, with how to start the daemon
      expect(io.asked, command).toEqual([]);
      expect(code).toBe(1);
      expect(io.err()).toContain(`error: cannot reach stockscreend at ${url}`);
      expect(io.err()).toContain('start it with');
    }
  });

  it('with --json also prints {"error":{code,message,details}} on stdout', async () => {
    const io = fakeIO({ stdin: 'correct horse battery' });
    const code = await run(['--url', url, '--json', 'register', '--email', 'x@example.com', '--password-stdin'], io, e.env);
    expect(code).toBe(1);
    expect(JSON.parse(io.out())).toEqual({ error: { code: 'ECONNREFUSED', message: `cannot reach stockscreend at ${url}`, details: {} } });
    expect(io.err()).toContain(`error: cannot reach stockscreend at ${url} (ECONNREFUSED)`);
    // The same through the environment, and for a usage problem found by a command
    const viaEnv = fakeIO();
    expect(await run(['--url', url, 'load', '/nonexistent/x.csv'], viaEnv, { ...e.env, STOCKSCREEN_JSON: '1' })).toBe(2);
    expect(JSON.parse(viaEnv.out()).error.code).toBe('USAGE');
    const usage = fakeIO();
    await run(['--url', url, '--json', 'load', '/nonexistent/x.csv'], usage, e.env);
    expect(JSON.parse(usage.out()).error).toMatchObject({ code: 'USAGE', message: expect.stringContaining('cannot read (ENOENT)') });
  });

  it('prints the URL tried and how to start the daemon, exit 1', async () => {
    const io = fakeIO({ stdin: 'correct horse battery' });
    const code = await run(['--url', url, 'register', '--email', 'x@example.com', '--password-stdin'], io, e.env);
    expect(code).toBe(1);
    expect(io.out()).toBe('');
    expect(io.err()).toBe(`error: cannot reach stockscreend at ${url} (ECONNREFUSED)\nhint: start it with \`stockscreen daemon start\` or \`npm run up\`\n`);
  });

  it('takes the URL from STOCKSCREEN_URL, and daemon status reports the daemon down with exit 1', async () => {
    const io = fakeIO();
    const code = await run(['daemon', 'status'], io, { ...e.env, STOCKSCREEN_URL: url });
    expect(code).toBe(1);
    expect(io.err()).toContain(`cannot reach stockscreend at ${url}`);
  });

  it('rejects a malformed --url as a usage error', async () => {
    const io = fakeIO();
    expect(await run(['--url', 'not a url', 'whoami'], io, e.env)).toBe(2);
    expect(io.err()).toContain('invalid --url');
  });
});

describe('help', () => {
  let e: TempEnv;
  beforeAll(async () => {
    e = await tempEnv();
  });
  afterAll(() => e.cleanup());

  it('ends every command help with an Examples: section, on stdout, exit 0', async () => {
    const { env } = e;
    const paths = [[], ...commandPaths(createProgram(createContext(fakeIO(), env)))];
    expect(paths.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['login', 'daemon start', 'admin users set-tier']));
    for (const path of paths) {
      const io = fakeIO();
      expect(await run([...path, '--help'], io, env), path.join(' ')).toBe(0);
      expect(io.out(), path.join(' ')).toMatch(/\nExamples:\n {2}\$ stockscreen/);
      expect(io.err()).toBe('');
    }
  });

  it('documents the STOCKSCREEN_* rule once, in the root help', async () => {
    const io = fakeIO();
    await run(['--help'], io, {});
    expect(io.out()).toContain('--some-flag → STOCKSCREEN_SOME_FLAG');
  });

  it('answers an unknown command or option with a usage error (exit 2) on stderr', async () => {
    for (const argv of [['frobnicate'], ['whoami', '--bogus'], ['daemon']]) {
      const io = fakeIO();
      expect(await run(argv, io, {}), argv.join(' ')).toBe(2);
      expect(io.out()).toBe('');
      expect(io.err().length).toBeGreaterThan(0);
    }
  });
});
