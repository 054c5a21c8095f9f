import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Prompt } from '../../../../cli/ui/components/Prompt.js';

const ENTER = '\r';
const BACKSPACE = '\u007f';
const ESC = '\u001b';

describe('Prompt', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  /** Render and wait until the input handler is attached (Ink attaches it in an effect). */
  async function open(props: { secret?: boolean }) {
    const onSubmit = vi.fn();
    const onCancel = vi.fn();
    app = render(<Prompt label="Password" secret={props.secret} onSubmit={onSubmit} onCancel={onCancel} />);
    await vi.waitFor(() => expect(app!.stdin.listenerCount('readable') + app!.stdin.listenerCount('data')).toBeGreaterThan(0));
    return { app, onSubmit, onCancel };
  }

  it('masks secret input, supports backspace, and submits the real text on Enter', async () => {
    const { app, onSubmit } = await open({ secret: true });
    for (const ch of ['s', 'e', 'c', 'x']) app.stdin.write(ch);
    app.stdin.write(BACKSPACE);
    app.stdin.write('r');
    await vi.waitFor(() => expect(app.lastFrame()).toContain('Password: ****'));
    expect(app.lastFrame()).not.toContain('secr');
    app.stdin.write(ENTER);
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith('secr'));
  });

  it('shows plain input and submits a pasted chunk that ends in a newline', async () => {
    const { app, onSubmit } = await open({});
    app.stdin.write('me@example.com\r');
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith('me@example.com'));
    expect(app.lastFrame()).toContain('Password: me@example.com');
  });

  it('cancels on Esc without submitting', async () => {
    const { app, onSubmit, onCancel } = await open({});
    app.stdin.write('abc');
    app.stdin.write(ESC);
    await vi.waitFor(() => expect(onCancel).toHaveBeenCalledTimes(1));
    expect(onSubmit).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(app.lastFrame()).toContain('(cancelled)'));
  });
});
