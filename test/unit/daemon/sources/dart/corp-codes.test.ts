/** CORPCODE.xml as OpenDART writes it, its error document, and what a strict reader refuses. */
import { describe, expect, it } from 'vitest';
import { CorpCodeXmlError, parseCorpCodes, parseStatusXml } from '../../../../../daemon/sources/dart/corp-codes.js';

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

describe('parseStatusXml', () => {
  it('reads the status and message of an error document, and nothing from the list or junk', async () => {
    expect(await parseStatusXml('<?xml version="1.0" encoding="UTF-8"?><result><status>010</status><message>등록되지 않은 키입니다.</message></result>'))
      .toEqual({ status: '010', message: '등록되지 않은 키입니다.' });
    expect(await parseStatusXml(LIST)).toBeNull();
    expect(await parseStatusXml('PK\u0003\u0004garbage')).toBeNull();
  });
});
