import { describe, it, expect } from 'vitest';
import { listingCsvLoader } from '../../../loaders/listing-csv.js';

describe('listing-csv', () => {
  const csv = [
    'Code,Name,Market,Sector,Industry,ListingDate,Shares,NameEnglish',
    '005930,삼성전자,KOSPI,전기전자,통신 및 방송 장비 제조업,1975-06-11,"5,919,637,922",Samsung Electronics',
    '086520,에코프로,KOSDAQ GLOBAL,,,2007-07-20,135776152,',
    '999990,코넥스종목,KONEX,,,,1000,',
  ].join('\n');

  it('yields complete updates and leaves blank cells out', () => {
    const result = listingCsvLoader.parse(csv, 'master.csv', {});
    expect(result.stocks[0]).toEqual({
      code: '005930', name: '삼성전자', market: 'KOSPI', sector: '전기전자', industry: '통신 및 방송 장비 제조업',
      listing_date: '1975-06-11', shares_outstanding: 5_919_637_922, name_english: 'Samsung Electronics', is_preferred: false,
    });
    expect(result.stocks[1]).toEqual({
      code: '086520', name: '에코프로', market: 'KOSDAQ', board: 'KOSDAQ GLOBAL', listing_date: '2007-07-20',
      shares_outstanding: 135_776_152, is_preferred: false,
    });
    expect(result.skipped).toEqual([{ reason: 'KONEX issue (market not covered)', count: 1 }]);
  });

  it('accepts snake_case headers', () => {
    const result = listingCsvLoader.parse('code,name,market,sector,industry,listing_date,shares,name_english\n000660,SK하이닉스,KOSPI,,,1996-12-26,712702365,SK hynix\n', 'm.csv', {});
    expect(result.stocks[0]).toMatchObject({ code: '000660', listing_date: '1996-12-26', name_english: 'SK hynix' });
  });

  it('rejects a bad listing date', () => {
    const result = listingCsvLoader.parse('Code,Name,Market,Sector,Industry,ListingDate,Shares\n000660,X,KOSPI,,,1996-13-01,1\n', 'm.csv', { maxBadRatio: 1 });
    expect(result.rejected[0]?.reason).toBe('invalid listing date "1996-13-01"');
  });
});
