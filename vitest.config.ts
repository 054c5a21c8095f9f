import { createConnection } from 'node:net';
import { configDefaults, defineConfig, type TestProjectConfiguration, type ViteUserConfig } from 'vitest/config';

/** PostgreSQL server of the `postgres` pass (see test/helpers/postgres-setup.ts). */
const PG_URL = process.env.STOCKSCREEN_TEST_PG_URL ?? 'postgres://127.0.0.1:5432/postgres';

/** Whether something listens on the URL's host and port (the setup then checks it really is PostgreSQL). */
function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname || '127.0.0.1', port: Number(port || 5432), timeout: 2000 });
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.once('connect', () => done(true)).once('error', () => done(false)).once('timeout', () => done(false));
  });
}

export default defineConfig(async (): Promise<ViteUserConfig> => {
  // Two passes: everything on sqlite, and the integration suite again on PostgreSQL.
  // STOCKSCREEN_TEST_BACKENDS=sqlite skips the second; without a server it is skipped with a notice.
  const wanted = (process.env.STOCKSCREEN_TEST_BACKENDS ?? 'sqlite,postgres').split(',').map((s) => s.trim());
  const postgres = wanted.includes('postgres') && (await answers(PG_URL));
  // (vitest evaluates this file more than once; one notice is enough)
  if (wanted.includes('postgres') && !postgres && !process.env.STOCKSCREEN_TEST_PG_NOTICE) {
    process.env.STOCKSCREEN_TEST_PG_NOTICE = '1';
    process.stderr.write(`\n[stockscreen tests] no PostgreSQL answers at ${PG_URL.replace(/:[^:@/]*@/, ':***@')}: the postgres pass is skipped (start one, or set STOCKSCREEN_TEST_PG_URL)\n\n`);
  }
  const include = ['test/**/*.test.ts', 'test/**/*.test.tsx'];
  // Integration files whose subject is not the storage: the postgres pass would run the same
  // minute again on another database and assert nothing new. The README tour is what `npm run up`
  // starts (sqlite); the others are about Redis, the CLI's retries or a provider's protocol, and
  // their database work (a sample load) is covered on PostgreSQL by the jobs and market files.
  const storageIrrelevant = [
    'test/integration/tour/readme-tour.test.ts',
    'test/integration/cli/wait-survives.test.ts',
    'test/integration/feed/kis-feed.test.ts',
    'test/integration/http/idempotency-redis-pause.test.ts',
  ];
  const projects: TestProjectConfiguration[] = [];
  // test/postgres holds what only PostgreSQL has (a network link to cut, say).
  if (wanted.includes('sqlite')) projects.push({ extends: true, test: { name: 'sqlite', include, exclude: [...configDefaults.exclude, 'test/postgres/**'] } });
  if (postgres) {
    projects.push({
      extends: true,
      test: {
        name: 'postgres',
        include: ['test/integration/**/*.test.ts', 'test/integration/**/*.test.tsx', 'test/postgres/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...storageIrrelevant],
        env: { STOCKSCREEN_TEST_DB: 'postgres' },
        globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/postgres-setup.ts'],
      },
    });
  }
  return {
    test: {
      globalSetup: ['test/helpers/global-setup.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // Two cores on CI: a few files at a time keeps real servers responsive.
      maxWorkers: 2,
      // Each worker keeps its module graph from file to file: importing the daemon afresh for every
      // file cost more than running most files (unit tests: 74 s isolated, 10 s shared). Files keep
      // their own state in what they create (a daemon, a Redis prefix, a temp dir), never in modules.
      isolate: false,
      // Ink decides once per process, at import, whether it runs in CI (then it draws only the last
      // frame). Tests see what a user's terminal shows, whatever the CI runner sets.
      env: { CI: 'false' },
      reporters: ['default'],
      projects,
    },
  };
});
