import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../daemon/errors.js';
import { checkTarget, isLoopbackHost, wsBase } from '../../../loadtest/guard.js';

describe('remote-target guard', () => {
  it('accepts loopback addresses and localhost', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'api.localhost', '[::1]', '::1', '[::ffff:127.0.0.1]', '[0:0:0:0:0:0:0:1]']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    expect(checkTarget('http://127.0.0.1:8000/', false)).toBe('http://127.0.0.1:8000');
    expect(checkTarget('http://[::1]:9000', false)).toBe('http://[::1]:9000');
  });

  it('refuses private, public and named hosts without allowRemote', () => {
    for (const url of ['http://10.0.0.1:8000', 'http://example.com', 'https://192.168.1.5', 'http://0.0.0.0:8000', 'http://[::ffff:10.0.0.1]', 'http://128.0.0.1']) {
      let error: unknown;
      try {
        checkTarget(url, false);
      } catch (err) {
        error = err;
      }
      expect(isAppError(error), url).toBe(true);
      expect((error as Error).message).toMatch(/not a loopback address.*--allow-remote/);
    }
  });

  it('lets a remote target through with allowRemote, and refuses other schemes', () => {
    expect(checkTarget('https://screen.example.com/base/', true)).toBe('https://screen.example.com/base');
    expect(() => checkTarget('ftp://127.0.0.1', false)).toThrow(/unsupported scheme/);
    expect(() => checkTarget('not a url', true)).toThrow(/not a URL/);
  });

  it('derives the WebSocket base URL', () => {
    expect(wsBase('http://127.0.0.1:8000')).toBe('ws://127.0.0.1:8000');
    expect(wsBase('https://x.localhost')).toBe('wss://x.localhost');
  });
});
