import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { planFolder } from '../../../loaders/folder.js';
import { KRX_DIR } from './real-data.js';

describe('planFolder', () => {
  it('orders the real KRX folder: desc first, quotes by date, then indexes', async () => {
    const plan = await planFolder(KRX_DIR);
    const short = plan.files.map((f) => `${f.format}:${f.path.slice(KRX_DIR.length)}`);
    expect(plan.unrecognised).toEqual([]); // README.md is not a data file
    expect(short[0]).toBe('fdr-desc:desc/2026-03-20.csv');
    const quotes = plan.files.filter((f) => f.format === 'fdr-listing').map((f) => f.trade_date);
    expect(quotes).toEqual(['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13',
      '2026-03-16', '2026-03-17', '2026-03-18', '2026-03-19', '2026-03-20']);
    expect(short.slice(11)).toEqual(['fdr-index:index/kosdaq/2025.csv', 'fdr-index:index/kosdaq/2026.csv',
      'fdr-index:index/kospi/2025.csv', 'fdr-index:index/kospi/2026.csv']);
  });

  it('puts statements after prices and lists files it cannot recognise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-'));
    try {
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'fin.csv'), 'code,fiscal_year,fiscal_quarter,revenue\n');
      writeFileSync(join(dir, 'sub', '005930.csv'), 'Date,Open,High,Low,Close,Volume\n');
      writeFileSync(join(dir, 'master.csv'), 'Code,Name,Market,Sector,Industry,ListingDate,Shares\n');
      writeFileSync(join(dir, 'notes.txt'), 'just text\n');
      writeFileSync(join(dir, '.hidden.csv'), 'Code,Name,Market,Sector,Industry,ListingDate,Shares\n');
      const plan = await planFolder(dir);
      expect(plan.files.map((f) => f.format)).toEqual(['listing-csv', 'ohlcv', 'financials-csv']);
      expect(plan.unrecognised).toEqual([join(dir, 'notes.txt')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
