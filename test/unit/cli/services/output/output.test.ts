import { describe, expect, it } from 'vitest';
import { createOutput, outputMode, tsvLine, type Renderers } from '../../../../../cli/services/output/output.js';

function sinks(tty: boolean) {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s), isTTY: tty, columns: 80 }, stderr: { write: (s: string) => (err += s) } },
    out: () => out,
    err: () => err,
  };
}

/** Renderers that show what they were called with. */
const spyRenderers: Renderers = {
  table: (data, o) => `TABLE ${data.headers.join(',')} rows=${data.rows.length} color=${o.color} cols=${o.columns}`,
  record: (data, o) => `RECORD ${data.fields.map(([k]) => k).join(',')} color=${o.color}`,
};

const apiBody = { status: 'success', data: [{ id: 'u1', email: 'a@example.com' }], meta: { timestamp: 't', request_id: 'r', total: 1 } };
const table = { headers: ['ID', 'EMAIL'], rows: [['u1', 'a@example.com']] };

describe('output modes', () => {
  it('picks json over everything, then tty vs plain from stdout', () => {
    expect(outputMode(true, { write: () => 0, isTTY: true })).toBe('json');
    expect(outputMode(false, { write: () => 0, isTTY: true })).toBe('tty');
    expect(outputMode(false, { write: () => 0 })).toBe('plain');
  });

  it('--json prints exactly the API body, on a TTY or piped', () => {
    for (const tty of [true, false]) {
      const s = sinks(tty);
      createOutput(s.io, { json: true, color: true }, spyRenderers).table(apiBody, table);
      expect(JSON.parse(s.out())).toEqual(apiBody);
      expect(s.err()).toBe('');
    }
  });

  it('piped output is tab-separated rows without header or colour', () => {
    const s = sinks(false);
    const out = createOutput(s.io, { json: false, color: true }, spyRenderers);
    expect(out.color).toBe(false);
    out.table(apiBody, { headers: ['ID', 'STATE'], rows: [['u1', { text: 'healthy', tone: 'good' }], ['u2', null]] });
    expect(s.out()).toBe('u1\thealthy\nu2\t\n');
  });

  it('a record piped is one row in field order', () => {
    const s = sinks(false);
    createOutput(s.io, { json: false, color: true }, spyRenderers).record({}, { fields: [['id', 'u1'], ['name', null], ['tier', 'pro']] });
    expect(s.out()).toBe('u1\t\tpro\n');
  });

  it('a TTY gets the renderers, with colour unless switched off', () => {
    const on = sinks(true);
    createOutput(on.io, { json: false, color: true }, spyRenderers).table(apiBody, table);
    expect(on.out()).toBe('TABLE ID,EMAIL rows=1 color=true cols=80\n');
    const off = sinks(true);
    createOutput(off.io, { json: false, color: false }, spyRenderers).record({}, { fields: [['id', 'u1']] });
    expect(off.out()).toBe('RECORD id color=false\n');
  });

  it('an empty list is not an error: nothing piped, a note on stderr on a TTY', () => {
    const piped = sinks(false);
    createOutput(piped.io, { json: false, color: false }, spyRenderers).table({}, { headers: ['ID'], rows: [] });
    expect(piped.out()).toBe('');
    const tty = sinks(true);
    createOutput(tty.io, { json: false, color: false }, spyRenderers).table({}, { headers: ['ID'], rows: [] });
    expect(tty.err()).toBe('(no results)\n');
  });

  it('messages go to stderr; result lines are suppressed in json mode', () => {
    const s = sinks(false);
    const out = createOutput(s.io, { json: true, color: false }, spyRenderers);
    out.info('working');
    out.line('http://x');
    expect(s.out()).toBe('');
    expect(s.err()).toBe('working\n');
  });
});

describe('tsvLine', () => {
  it('replaces tabs and newlines inside values so columns stay intact', () => {
    expect(tsvLine(['a\tb', 'line1\nline2', 3, true, undefined])).toBe('a b\tline1 line2\t3\ttrue\t');
  });
});
