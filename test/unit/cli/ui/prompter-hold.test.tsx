/**
 * The Ink prompter keeps the terminal from echoing while a login collects its answers: a
 * password typed before its prompt appears, or between the email and password prompts, is
 * kept for the prompt and never shown. The fake terminal echoes what is typed while it is not
 * in raw mode, as a real one does.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { createInkPrompter } from '../../../../cli/ui/render.js';

/** A terminal: stdin in raw mode or not (echoing to `screen` when not), keys queued until read. */
class FakeTerminal extends EventEmitter {
  isTTY = true;
  raw = false;
  screen = '';
  private queue: string[] = [];
  /** Output side (where prompts are drawn). */
  readonly output = Object.assign(new EventEmitter(), { isTTY: true, columns: 80, write: (s: string) => void (this.screen += s) });
  setRawMode(mode: boolean): this { this.raw = mode; return this; }
  setEncoding(): void {}
  ref(): void {}
  unref(): void {}
  read(): string | null { return this.queue.shift() ?? null; }
  /** The user types `keys`. */
  type(keys: string): void {
    if (!this.raw) this.screen += keys.replace(/\r/g, '\n');
    this.queue.push(keys);
    this.emit('readable');
  }
  override on(event: string, listener: (...args: unknown[]) => void): this {
    super.on(event, listener);
    // Like a paused stream: data waiting when a reader arrives is announced to it.
    if (event === 'readable' && this.queue.length > 0) setImmediate(() => this.emit('readable'));
    return this;
  }
  override addListener(event: string, listener: (...args: unknown[]) => void): this {
    return this.on(event, listener);
  }
}

describe('createInkPrompter().hold()', () => {
  it('echoes nothing typed ahead of, or between, prompts; the prompts still get it', async () => {
    const tty = new FakeTerminal();
    const prompter = createInkPrompter({ stdin: tty as unknown as NodeJS.ReadStream, output: tty.output as unknown as NodeJS.WriteStream });
    // Given a hold taken before anything is asked (while the CLI still talks to the daemon)
    const release = prompter.hold!();
    expect(tty.raw).toBe(true);
    // When the user types the email ahead of its prompt
    tty.type('me@example.com\r');
    const email = await prompter.ask({ label: 'Email' });
    expect(email).toBe('me@example.com');
    // And the password before its prompt appears
    expect(tty.raw).toBe(true);
    tty.type('hunter2-secret\r');
    const password = await prompter.ask({ label: 'Password', secret: true });
    // Then the prompt got it, and the screen never showed it
    expect(password).toBe('hunter2-secret');
    expect(tty.screen).not.toContain('hunter2');
    await vi.waitFor(() => expect(tty.screen).toContain('Password: **************'));
    // And the terminal echoes again once released
    release();
    expect(tty.raw).toBe(false);
  });

  it('without a hold, a key typed between prompts would be echoed (what the hold prevents)', async () => {
    const tty = new FakeTerminal();
    const prompter = createInkPrompter({ stdin: tty as unknown as NodeJS.ReadStream, output: tty.output as unknown as NodeJS.WriteStream });
    tty.raw = false;
    const asked = prompter.ask({ label: 'Email' });
    await vi.waitFor(() => expect(tty.raw).toBe(true));
    tty.type('me@example.com\r');
    expect(await asked).toBe('me@example.com');
    expect(tty.raw).toBe(false);
    tty.type('x');
    expect(tty.screen.endsWith('x')).toBe(true);
  });
});
