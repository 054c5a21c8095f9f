/** CORPCODE.xml as OpenDART writes it, its error document, and what a strict reader refuses. */
import { describe, expect, it } from 'vitest';
import { CorpCodeXmlError, parseCorpCodes, parseStatusXml, XML_SLICE_BYTES } from '../../../../../daemon/sources/dart/corp-codes.js';

const LIST = `<?xml version="1.0" encoding="UTF-8"?>
<result>
    <list>
        <corp_code>00126380</corp_code>
        <corp_name>삼성전자</corp_name>
        <corp_eng_name>SAMSUNG ELECTRONICS CO,.LTD</corp_eng_name>
        <stock_code>005930</stock_code>
        <modify_date>20230110</modify_date>
    </list>
    <list>
        <corp_code>00434003</corp_code>
        <corp_name>다코 &amp; 일산</corp_name>
        <stock_code> </stock_code>
        <modify_date>20170630</modify_date>
    </list>
</result>
`;

describe('parseCorpCodes', () => {
  it('reads each company, a blank stock code as unlisted, entities decoded', async () => {
    expect(await parseCorpCodes(LIST)).toEqual([
      { corp_code: '00126380', corp_name: '삼성전자', stock_code: '005930', modify_date: '20230110' },
      { corp_code: '00434003', corp_name: '다코 & 일산', stock_code: '', modify_date: '20170630' },
    ]);
  });

  it('refuses a document cut off, nested deeper, with stray text, another root, or a bad code', async () => {
    for (const bad of [
      LIST.slice(0, LIST.length / 2),
      '<result><list><corp_code><b>1</b></corp_code></list></result>',
      '<result>oops<list><corp_code>00126380</corp_code></list></result>',
      '<html><body>시스템 점검</body></html>',
      '<result><list><corp_code>12</corp_code></list></result>',
      '<result><list><corp_code>00126380</corp_code></lst></result>',
      '<result><list><corp_code><![CDATA[00126380]]></corp_code></list></result>',
    ]) await expect(parseCorpCodes(bad), bad).rejects.toThrow(CorpCodeXmlError);
  });
});

describe('parseCorpCodes on the full list', () => {
  it('lets other callbacks run between slices: the event loop is never held for the whole document', async () => {
    // Given a list of 20,000 companies, bytes as inflated from the zip (a couple of megabytes: many slices)
    const rows = Array.from({ length: 20_000 }, (_, i) => `<list><corp_code>${String(i).padStart(8, '0')}</corp_code><corp_name>회사${i}</corp_name><stock_code>${i % 3 === 0 ? String(i).padStart(6, '0') : ' '}</stock_code><modify_date>20250101</modify_date></list>`);
    const bytes = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<result>\n${rows.join('\n')}\n</result>\n`, 'utf8');
    const slices = Math.ceil(bytes.length / XML_SLICE_BYTES);
    expect(slices).toBeGreaterThan(10);
    // When the parse runs beside a callback that reschedules itself on every turn of the loop
    let done = false;
    let turns = 0;
    const tick = () => {
      if (done) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    const list = await parseCorpCodes(bytes).finally(() => (done = true));
    // Then the callback ran between the slices (once per slice boundary at least), and every company was read
    expect(list).toHaveLength(20_000);
    expect(list[3]).toEqual({ corp_code: '00000003', corp_name: '회사3', stock_code: '000003', modify_date: '20250101' });
    expect(turns).toBeGreaterThanOrEqual(slices - 1);
  });

  it('refuses bytes that are not UTF-8, and a DOCTYPE (no entity expansion)', async () => {
    await expect(parseCorpCodes(Buffer.from([0x3c, 0x72, 0xff, 0xfe]))).rejects.toThrow(/not UTF-8/);
    await expect(parseCorpCodes('<!DOCTYPE result [<!ENTITY a "aaaa">]><result><list><corp_code>00126380</corp_code></list></result>')).rejects.toThrow(CorpCodeXmlError);
  });
});

describe('parseStatusXml', () => {
  it('reads the status and message of an error document, and nothing from the list or junk', async () => {
    expect(await parseStatusXml('<?xml version="1.0" encoding="UTF-8"?><result><status>010</status><message>등록되지 않은 키입니다.</message></result>'))
      .toEqual({ status: '010', message: '등록되지 않은 키입니다.' });
    expect(await parseStatusXml(LIST)).toBeNull();
    expect(await parseStatusXml('PK\u0003\u0004garbage')).toBeNull();
  });
});
