import { describe, it, expect } from 'vitest';
import { csvRows } from '../../../loaders/csv.js';

describe('csvRows', () => {
  it('splits plain rows and numbers lines from 1, skipping blank lines', () => {
    const rows = [...csvRows('a,b\n1,2\n\n3,4\n')];
    expect(rows).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 4, fields: ['3', '4'] },
    ]);
  });

  it('handles CRLF, quoted commas, doubled quotes and empty fields', () => {
    const rows = [...csvRows('x,y,z\r\n"a,b","say ""hi""",\r\n')];
    expect(rows[1]).toEqual({ line: 2, fields: ['a,b', 'say "hi"', ''] });
  });

  it('keeps a line break inside quotes and counts the lines it spans', () => {
    const rows = [...csvRows('h1,h2\n"two\nlines",x\nlast,y')];
    expect(rows[1]).toEqual({ line: 2, fields: ['two\nlines', 'x'] });
    expect(rows[2]).toEqual({ line: 4, fields: ['last', 'y'] });
  });
});
