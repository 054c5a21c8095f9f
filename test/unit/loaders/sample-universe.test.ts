/**
 * The sample market's embedded universe is what the regeneration script derives from the real
 * KRX files (so the data file and its note of origin stay true), and English names are derived
 * the documented way.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveEnglish, preferredEnglish, romanize } from '../../../loaders/sample/derive/english-names.js';
import { universeText } from '../../../loaders/sample/derive/universe-text.js';
import { KRX_DIR } from '../../helpers/krx-fixtures.js';

describe('npm run sample:universe', () => {
  it('derives exactly the committed loaders/sample/universe-data.ts from test/fixtures/krx', () => {
    const derived = universeText(KRX_DIR);
    const committed = readFileSync(new URL('../../../loaders/sample/universe-data.ts', import.meta.url), 'utf8');
    expect(derived.text).toBe(committed);
    expect(derived.issues).toBe(2_769);
    expect(derived.names.slice(0, 2)).toEqual([
      { code: '005930', name: '삼성전자', english: 'Samsung Electronics' },
      { code: '000660', name: 'SK하이닉스', english: 'SK hynix' },
    ]);
  });

  it('derives English names: Latin kept, group names and common words translated, the rest romanized', () => {
    expect(romanize('국순당')).toBe('Guksundang');
    expect(romanize('헬릭스미스')).toBe('Hellikseumiseu');
    expect(deriveEnglish('동국제강')).toBe('Dongkuk Steel');
    expect(deriveEnglish('압타바이오')).toBe('Apta Bio');
    expect(deriveEnglish('HB인베스트먼트')).toBe('HB Investment');
    expect(deriveEnglish('신한제11호스팩')).toBe('Shinhan SPAC No.11');
    expect(deriveEnglish('엔에이치스팩30호')).toBe('NH SPAC No.30');
    // a word inside a brand written in Hangul does not cut it
    expect(deriveEnglish('아세아')).toBe('Asea');
    expect(preferredEnglish('현대차2우B', '현대차', 'Hyundai Motor')).toBe('Hyundai Motor Pref 2B');
    expect(preferredEnglish('CJ4우(전환)', 'CJ', 'CJ')).toBe('CJ Pref 4 (Convertible)');
  });
});
