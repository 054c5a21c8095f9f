/** Mount the `screen --live` view on the real terminal (keys from stdin when it is a terminal). */
import { render } from 'ink';
import type { CliIO } from '../io.js';
import type { LiveScreenViewOptions, MountedLiveScreen } from '../services/output/views.js';
import { LiveScreenView } from './components/LiveScreenView.js';


/** Mount the view. */
export function mountLiveScreenView(o: LiveScreenViewOptions, io: CliIO): MountedLiveScreen {
  const interactive = process.stdin.isTTY === true;
  const maxRows = Math.max(5, ((io.stdout as { rows?: number }).rows ?? 40) - 18);
  const node = () => <LiveScreenView subscribe={o.client.on} color={o.color} interactive={interactive} onExit={o.onExit} maxRows={maxRows} />;
  const instance = render(node(), {
    stdout: io.stdout as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
    stdin: process.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        instance.rerender(node());
        instance.unmount();
        await instance.waitUntilExit().catch(() => undefined);
      })()),
  };
}
