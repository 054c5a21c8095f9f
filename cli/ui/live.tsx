/**
 * Live Ink screens on the real terminal (`watch`, `ws-stats --watch`, `screen --live`): drawn on stdout,
 * keys read from stdin when it is a terminal, unmounted when the command stops.
 */
import { render } from 'ink';
import type { ReactNode } from 'react';
import type { CliIO } from '../io.js';
import type { LiveScreenViewOptions, MountedLiveScreen } from '../services/output/views.js';
import type { WatchState } from '../services/realtime/watch-state.js';
import type { WsClient } from '../services/transport/ws-client.js';
import type { StatsEvent } from '../services/realtime/ws-stats.js';
import type { Subscribe } from './hooks/use-event-fold.js';
import { LiveScreenView } from './components/LiveScreenView.js';
import { WatchScreen } from './components/WatchScreen.js';
import { WsStatsDashboard } from './components/WsStatsDashboard.js';

/** A mounted screen. */
export interface LiveScreen {
  /** Keys are read (stdin is a terminal). */
  interactive: boolean;
  /** Draw the latest state once more, unmount and wait until Ink restored the terminal; idempotent. */
  close(): Promise<void>;
}

function mount(node: (interactive: boolean) => ReactNode, io: CliIO): LiveScreen {
  const interactive = process.stdin.isTTY === true;
  const instance = render(node(interactive), {
    stdout: io.stdout as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
    stdin: process.stdin,
    // q / Ctrl-C are handled by the screens, which stop the command cleanly.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closing: Promise<void> | undefined;
  return {
    interactive,
    close: () =>
      (closing ??= (async () => {
        // Renders are throttled: the last events may not be on screen yet.
        instance.rerender(node(interactive));
        instance.unmount();
        await instance.waitUntilExit().catch(() => undefined);
      })()),
  };
}

/** Options of the watch screen. */
export interface WatchScreenOptions {
  client: WsClient;
  initial: WatchState;
  color: boolean;
  loggedIn: boolean;
  /** Called when the user presses q or Ctrl-C. */
  onExit(): void;
}

/** Mount the `watch` screen. */
export function mountWatchScreen(o: WatchScreenOptions, io: CliIO): LiveScreen {
  const rows = Math.max(5, ((io.stdout as { rows?: number }).rows ?? 40) - 16);
  return mount(
    (interactive) => <WatchScreen subscribe={o.client.on} initial={o.initial} color={o.color} loggedIn={o.loggedIn} interactive={interactive} onExit={o.onExit} maxRows={rows} />,
    io,
  );
}

/** Options of the stats dashboard. */
export interface StatsDashboardOptions {
  subscribe: Subscribe<StatsEvent>;
  url: string;
  intervalLabel: string;
  color: boolean;
  onExit(): void;
}

/** Mount the `ws-stats --watch` dashboard. */
export function mountStatsDashboard(o: StatsDashboardOptions, io: CliIO): LiveScreen {
  return mount((interactive) => <WsStatsDashboard {...o} interactive={interactive} />, io);
}

/** Mount the `screen --live` view (its table leaves room for the header and the event log). */
export function mountLiveScreenView(o: LiveScreenViewOptions, io: CliIO): MountedLiveScreen {
  const maxRows = Math.max(5, ((io.stdout as { rows?: number }).rows ?? 40) - 18);
  return mount((interactive) => <LiveScreenView subscribe={o.client.on} color={o.color} interactive={interactive} onExit={o.onExit} maxRows={maxRows} />, io);
}
