/**
 * A `stockscreend` of a given build spawned on a bench's data dir (its own process, as an operator
 * runs it): the config file written beside the data, the environment without STOCKSCREEN_ settings
 * of the shell, ready once it prints its ready line. Used by the benches that measure the daemon's
 * own RSS and CPU from /proc (bench:abuse, bench:as-of-steps).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** How to start it. */
export interface SpawnOptions {
  redisUrl: string;
  prefix: string;
  rateLimit: boolean;
  /** Node flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the daemon. */
  nodeArgs?: string[];
  /** A file that gets every line the daemon prints (e.g. its `--trace-gc` output); none by default. */
  logFile?: string;
}

export interface SpawnedDaemon {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after 15 s; true when SIGKILL was needed. */
  stop(): Promise<boolean>;
}

/** Start the daemon of `build` (a repository root with bin/ and a built dist/) on `dataDir`. @throws when it is not ready in 120 s or exits first */
export async function startDaemon(build: string, dataDir: string, o: SpawnOptions): Promise<SpawnedDaemon> {
  const file = join(dataDir, 'bench.json');
  await writeFile(file, JSON.stringify({
    host: '127.0.0.1', port: 0, data_dir: dataDir, redis_url: o.redisUrl, redis_prefix: o.prefix, jwt_secret: 'bench-secret-bench-secret-bench-secret-0123',
    admin_email: 'ops@example.com', admin_password: 'ops-password-1', log_level: 'warn', log_format: 'json', feed: 'simulator', market_clock: 'always-open',
    workers: 1, password_scrypt_log_n: 10, rate_limit: { enabled: o.rateLimit },
  }));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STOCKSCREEN_|REDIS_URL$|DATABASE_URL$)/.test(k)));
  const child: ChildProcess = spawn(process.execPath, [...(o.nodeArgs ?? []), join(build, 'bin/stockscreend'), '--config', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('daemon not ready in 120 s')), 120_000);
    // The ready line on stderr (daemon/ready-line.ts): `ready at http://… — N stocks, …`.
    const onLine = (line: string) => {
      if (o.logFile) appendFileSync(o.logFile, `${line}\n`);
      const m = /ready at (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    void exited.then(() => fail(new Error('daemon exited before it was ready')));
  });
  return {
    url,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 15_000))]);
      if (killed) {
        child.kill('SIGKILL');
        await exited;
      }
      return killed;
    },
  };
}

