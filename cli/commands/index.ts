/**
 * Every command of `stockscreen`, in help order. To add one: write
 * `commands/<topic>/<cmd>.ts` exporting `register(parent, ctx)` (flags only; logic in
 * services/, views in ui/), then add a line below; a new group also gets a GROUPS entry.
 */
import type { Command } from 'commander';
import { register as adminUsersList } from './admin/users-list.js';
import { register as adminUsersSet } from './admin/users-set.js';
import { register as adminUsersLoadtest } from './admin/users-loadtest.js';
import { register as login } from './auth/login.js';
import { register as logout } from './auth/logout.js';
import { register as registerAccount } from './auth/register.js';
import { register as whoami } from './auth/whoami.js';
import type { CliContext } from './context.js';
import { register as daemonLogs } from './daemon/logs.js';
import { register as daemonStart } from './daemon/start.js';
import { register as daemonStatus } from './daemon/status.js';
import { register as daemonStop } from './daemon/stop.js';
import { register as exportMarket } from './export/export.js';
import { register as jobsList } from './jobs/list.js';
import { register as jobsShow } from './jobs/show.js';
import { register as load } from './load/load.js';
import { register as loadtest } from './loadtest/run.js';
import { register as loadSample } from './load/sample.js';
import { register as presetsList } from './presets/list.js';
import { register as presetsRm } from './presets/rm.js';
import { register as presetsRun } from './presets/run.js';
import { register as presetsSave } from './presets/save.js';
import { register as presetsShow } from './presets/show.js';
import { register as screen } from './screen/screen.js';
import { register as screenFields } from './screen/fields.js';
import { register as screenTemplates } from './screen/templates.js';
import { register as backtest } from './backtest/backtest.js';
import { register as backtestCancel } from './backtest/cancel.js';
import { register as backtestList } from './backtest/list.js';
import { register as backtestShow } from './backtest/show.js';
import { register as stocksFinancials } from './stocks/financials.js';
import { register as stocksHistory } from './stocks/history.js';
import { register as stocksList } from './stocks/list.js';
import { register as stocksSectors } from './stocks/sectors.js';
import { register as stocksPrice } from './stocks/price.js';
import { register as stocksShow } from './stocks/show.js';
import { register as alertsAdd } from './alerts/add.js';
import { register as alertsAddScreen } from './alerts/add-screen.js';
import { register as alertsEdit } from './alerts/edit.js';
import { register as alertsHistory } from './alerts/history.js';
import { register as alertsList } from './alerts/list.js';
import { register as alertsRm } from './alerts/rm.js';
import { register as portfolioAdd } from './portfolio/add.js';
import { register as portfolioPerf } from './portfolio/perf.js';
import { register as portfolioRm } from './portfolio/rm.js';
import { register as portfolioShow } from './portfolio/show.js';
import { register as channelsAdd } from './channels/add.js';
import { register as channelsList } from './channels/list.js';
import { register as channelsRm } from './channels/rm.js';
import { register as channelsTest } from './channels/test.js';
import { register as deliveries } from './deliveries/list.js';
import { register as deliveriesRedeliver } from './deliveries/redeliver.js';
import { register as schedulesAdd } from './schedules/add.js';
import { register as schedulesList } from './schedules/list.js';
import { register as schedulesRm } from './schedules/rm.js';
import { register as sourcesList } from './sources/list.js';
import { register as sourcesSync } from './sources/sync.js';
import { register as sourcesTest } from './sources/test.js';
import { register as watch } from './realtime/watch.js';
import { register as wsStats } from './realtime/ws-stats.js';
import { examples } from './shared.js';

/** One registration: `register` adds its command(s) under the group at `group` ([] = top level). */
export interface Registration {
  group: string[];
  register(parent: Command, ctx: CliContext): void;
}

/** Command groups (keyed by their path joined with spaces): description and examples. */
export const GROUPS: Record<string, { description: string; examples: string[] }> = {
  daemon: {
    description: 'Run and inspect the local stockscreend',
    examples: ['stockscreen daemon start --sample', 'stockscreen daemon status', 'stockscreen daemon logs -f', 'stockscreen daemon stop'],
  },
  admin: {
    description: 'Administration (needs an account with the admin role)',
    examples: ['stockscreen admin users list', 'stockscreen admin users set-tier bob@example.com pro'],
  },
  'admin users': {
    description: 'List accounts, change their tier or role, grant time-limited load-test exemptions',
    examples: ['stockscreen admin users list --json', 'stockscreen admin users set-role alice@example.com admin', 'stockscreen admin users loadtest-grant me@example.com --for 2h'],
  },
  jobs: {
    description: 'Market-data jobs: loads and indicator computations (admin only)',
    examples: ['stockscreen jobs list', 'stockscreen jobs show 12'],
  },
  sources: {
    description: 'Data sources (admin only): status, a test of the key and each approval, backfills. Without a subcommand: the status table',
    examples: ['stockscreen sources', 'stockscreen sources test krx', 'stockscreen sources sync krx --from 2024-01-01 --wait', 'stockscreen sources --json'],
  },
  stocks: {
    description: 'Stocks: list, details with indicators, price, history with a chart, financials',
    examples: ['stockscreen stocks list --market KOSPI', 'stockscreen stocks show 005930', 'stockscreen stocks history 005930 --interval week'],
  },
  presets: {
    description: 'Your saved screens',
    examples: ["stockscreen presets save cheap --where 'per < 10'", 'stockscreen presets list', 'stockscreen presets run cheap'],
  },
  alerts: {
    description: 'Your price alerts: list, add, edit, remove, and when they fired (they also show in `stockscreen watch`)',
    examples: ['stockscreen alerts add 005930 price_above 80000', 'stockscreen alerts list --active', 'stockscreen alerts history'],
  },
  channels: {
    description: 'Where your alerts and digests are delivered: webhooks (signed), Telegram, Slack, Discord, e-mail',
    examples: ['stockscreen channels add webhook https://example.com/hook --name ops', 'stockscreen channels add telegram --chat 123456789 --name phone', 'stockscreen channels list', 'stockscreen channels test phone'],
  },
  schedules: {
    description: 'Daily digests: a preset run at a time of the trading day, sent with what entered and left',
    examples: ['stockscreen schedules add cheap --at 15:40 --notify phone', 'stockscreen schedules list', 'stockscreen schedules rm 6f1c2a9e'],
  },
  portfolio: {
    description: 'Your portfolio: holdings with P&L, and performance (returns, risk, allocation, value chart)',
    examples: ['stockscreen portfolio add 005930 10 71000', 'stockscreen portfolio show', 'stockscreen portfolio perf'],
  },
};

/** All registrations. */
export const REGISTRATIONS: readonly Registration[] = [
  { group: [], register: registerAccount },
  { group: [], register: login },
  { group: [], register: logout },
  { group: [], register: whoami },
  { group: ['daemon'], register: daemonStart },
  { group: ['daemon'], register: daemonStop },
  { group: ['daemon'], register: daemonStatus },
  { group: ['daemon'], register: daemonLogs },
  { group: ['admin', 'users'], register: adminUsersList },
  { group: ['admin', 'users'], register: adminUsersSet },
  { group: ['admin', 'users'], register: adminUsersLoadtest },
  { group: [], register: load },
  { group: ['load'], register: loadSample },
  { group: ['jobs'], register: jobsList },
  { group: ['jobs'], register: jobsShow },
  { group: ['sources'], register: sourcesList },
  { group: ['sources'], register: sourcesTest },
  { group: ['sources'], register: sourcesSync },
  { group: ['stocks'], register: stocksList },
  { group: ['stocks'], register: stocksSectors },
  { group: ['stocks'], register: stocksShow },
  { group: ['stocks'], register: stocksPrice },
  { group: ['stocks'], register: stocksHistory },
  { group: ['stocks'], register: stocksFinancials },
  { group: [], register: screen },
  { group: ['screen'], register: screenFields },
  { group: ['screen'], register: screenTemplates },
  { group: [], register: backtest },
  { group: ['backtest'], register: backtestList },
  { group: ['backtest'], register: backtestShow },
  { group: ['backtest'], register: backtestCancel },
  { group: ['presets'], register: presetsList },
  { group: ['presets'], register: presetsSave },
  { group: ['presets'], register: presetsShow },
  { group: ['presets'], register: presetsRm },
  { group: ['presets'], register: presetsRun },
  { group: [], register: exportMarket },
  { group: [], register: loadtest },
  { group: [], register: watch },
  { group: [], register: wsStats },
  { group: ['alerts'], register: alertsList },
  { group: ['alerts'], register: alertsAdd },
  { group: ['alerts'], register: alertsAddScreen },
  { group: ['alerts'], register: alertsEdit },
  { group: ['alerts'], register: alertsRm },
  { group: ['alerts'], register: alertsHistory },
  { group: ['channels'], register: channelsList },
  { group: ['channels'], register: channelsAdd },
  { group: ['channels'], register: channelsTest },
  { group: ['channels'], register: channelsRm },
  { group: [], register: deliveries },
  { group: ['deliveries'], register: deliveriesRedeliver },
  { group: ['schedules'], register: schedulesAdd },
  { group: ['schedules'], register: schedulesList },
  { group: ['schedules'], register: schedulesRm },
  { group: ['portfolio'], register: portfolioShow },
  { group: ['portfolio'], register: portfolioAdd },
  { group: ['portfolio'], register: portfolioRm },
  { group: ['portfolio'], register: portfolioPerf },
];

/** The group command at `path` under `program`, created on first use. */
function groupCommand(program: Command, path: string[]): Command {
  let parent = program;
  path.forEach((name, i) => {
    const existing = parent.commands.find((c) => c.name() === name);
    if (existing) return void (parent = existing);
    const key = path.slice(0, i + 1).join(' ');
    const info = GROUPS[key] ?? { description: key, examples: [`stockscreen ${key} --help`] };
    parent = parent.command(name).description(info.description).addHelpText('after', examples(info.examples));
  });
  return parent;
}

/** Register every command on `program`. */
export function registerCommands(program: Command, ctx: CliContext): void {
  for (const registration of REGISTRATIONS) registration.register(groupCommand(program, registration.group), ctx);
}
