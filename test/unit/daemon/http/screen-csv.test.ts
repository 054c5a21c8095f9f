import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { csvCell, csvChunks, writeChunks, type ChunkSink } from '../../../../daemon/http/routes/screen-csv.js';
import { matchAll } from '../../../../daemon/screening/engine/query.js';
import { fixtureSnapshot } from '../screening/fixture.js';

/** A sink whose buffer is "full" after every write until the test emits drain. */
class FullSink extends EventEmitter implements ChunkSink {
  readonly written: string[] = [];
  destroyed = false;
  write(chunk: string): boolean {
    this.written.push(chunk);
    return false;
  }
}

/** Resolves once `sink` has `n` chunks (writes are observed, not waited for with a timer). */
function writtenCount(sink: FullSink, n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (sink.written.length >= n ? resolve() : setImmediate(check));
    check();
  });
}

describe('csvCell', () => {
  it('leaves plain values alone, empties nulls and quotes commas, quotes and line breaks', () => {
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvCell(null)).toBe('');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
  });
});

describe('csvChunks', () => {
  it('yields the header, then the matches a chunk at a time, built lazily', () => {
    // Given every fixture stock sorted by code
    const matches = matchAll(fixtureSnapshot(), { universe: {}, filters: [], sort: [{ field: 'code', direction: 'asc' }], page: 1, per_page: 1, fields: [] });
    // When the CSV is produced 3 rows at a time
    const chunks = csvChunks(matches, 3);
    // Then the header comes first and nothing else is built before it is asked for
    expect(chunks.next().value).toBe('code,name,market,sector,close,change_percent,market_cap\r\n');
    const rest = [...chunks];
    expect(rest).toHaveLength(3); // 8 rows: 3 + 3 + 2
    expect(rest.join('').split('\r\n').filter(Boolean).map((line) => line.split(',')[0])).toEqual([
      '000010', '000020', '000030', '000040', '000045', '000050', '000080', '0126Z0',
    ]);
    expect(rest[0]).toMatch(/^000010,가온전자,KOSPI,반도체,1000,1.5,500000000000\r\n/);
  });
});

describe('writeChunks', () => {
  it('writes the next chunk only after drain when the sink is full', async () => {
    // Given a sink that reports a full buffer after each write
    const sink = new FullSink();
    let pulled = 0;
    function* chunks() {
      for (let i = 0; i < 3; i++) {
        pulled++;
        yield `chunk ${i}\n`;
      }
    }
    // When writing starts
    const done = writeChunks(sink, chunks());
    await writtenCount(sink, 1);
    // Then it stops after the first chunk and has not even built the second
    expect(sink.written).toEqual(['chunk 0\n']);
    expect(pulled).toBe(1);
    // When the sink drains twice
    sink.emit('drain');
    await writtenCount(sink, 2);
    expect(pulled).toBe(2);
    sink.emit('drain');
    await writtenCount(sink, 3);
    sink.emit('drain');
    // Then every chunk went out in order
    await expect(done).resolves.toBe(true);
    expect(sink.written).toEqual(['chunk 0\n', 'chunk 1\n', 'chunk 2\n']);
    expect(sink.listenerCount('drain') + sink.listenerCount('close')).toBe(0);
  });

  it('stops, without building the rest, when the client goes away while waiting', async () => {
    // Given a full sink waiting for drain
    const sink = new FullSink();
    let pulled = 0;
    function* chunks() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield `${i}\n`;
      }
    }
    const done = writeChunks(sink, chunks());
    await writtenCount(sink, 1);
    // When the connection closes instead of draining
    sink.destroyed = true;
    sink.emit('close');
    // Then the writer reports it and built nothing more
    await expect(done).resolves.toBe(false);
    expect(pulled).toBe(1);
  });
});
