/**
 * The WebSocket protocol's Markdown (the `websocket` tag of OpenAPI, shown by Swagger UI and
 * ReDoc) renders as tables: Swagger UI's Markdown splits a cell on an escaped `\|`, so no cell
 * holds one, and every row has as many cells as its table's header.
 */
import { describe, expect, it } from 'vitest';
import { WS_PROTOCOL_DOC } from '../../../../daemon/ws/protocol-docs.js';

/** Cells of a Markdown table row as a renderer that ignores `\|` escapes would split it. */
const cells = (row: string): number => row.trim().replace(/^\||\|$/g, '').split('|').length;

describe('WebSocket protocol doc', () => {
  it('has tables whose every row has its header\'s number of cells, with no escaped pipe', () => {
    expect(WS_PROTOCOL_DOC).not.toContain('\\|');
    const lines = WS_PROTOCOL_DOC.split('\n');
    let header: number | undefined;
    let rows = 0;
    for (const line of lines) {
      if (!line.startsWith('|')) { header = undefined; continue; }
      if (header === undefined) { header = cells(line); continue; }
      expect(cells(line), line).toBe(header);
      rows += 1;
    }
    expect(rows).toBeGreaterThan(5);
  });
});
