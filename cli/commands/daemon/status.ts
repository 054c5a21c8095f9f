/** `stockscreen daemon status`: health of the daemon, its database and Redis. */
import type { Command } from 'commander';
import { checkHealth, marketLoadText } from '../../services/daemon/daemon-health.js';
import { controlUrl, findDaemon } from '../../services/daemon/daemon-target.js';
import { EXIT } from '../../services/session/errors.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `status` to the `daemon` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('status')
    .description('Show /health, /health/db and /health/redis (piped: rows of component, state, endpoint) and a market load in progress; exits 1 when anything is down')
    .addHelpText('after', examples(['stockscreen daemon status', 'stockscreen --url http://10.0.0.5:8000 daemon status --json']))
    .action(
      action(ctx, async (session) => {
        // A daemon started by this CLI is the natural target unless --url says otherwise.
        const target = await findDaemon(session.paths, controlUrl(session));
        const url = target.url;
        const report = await checkHealth(url);
        const raw = Object.fromEntries(report.checks.map((c) => [c.path, c.body]));
        const rows = report.checks.map((c) => [c.name, { text: c.state, tone: c.healthy ? 'good' : 'bad' } as const, c.path]);
        session.out.table(raw, { headers: ['COMPONENT', 'STATE', 'ENDPOINT'], rows });
        const local = target.pid === undefined ? '' : ` (pid ${target.pid}; log ${target.logFile ?? 'on the terminal it was started from'})`;
        session.out.info(`${url}${local}: ${report.healthy ? 'healthy' : 'unhealthy'}`);
        const load = marketLoadText(report.marketLoad);
        if (load) session.out.info(load);
        return report.healthy ? EXIT.OK : EXIT.ERROR;
      }),
    );
}
