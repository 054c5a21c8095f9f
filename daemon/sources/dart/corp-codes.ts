/**
 * OpenDART's company list: CORPCODE.xml inside the corpCode.xml zip
 * (`<result><list><corp_code>00126380</corp_code><corp_name>삼성전자</corp_name>
 * <corp_eng_name>…</corp_eng_name><stock_code>005930</stock_code><modify_date>20230110</modify_date></list>…</result>`;
 * an unlisted company's stock_code is a blank). The same root holds an error instead of the zip:
 * `<result><status>010</status><message>…</message></result>`. A strict reader of that flat shape
 * only: a root, records, text fields — anything else (nested elements, mismatched tags, CDATA,
 * a document cut off) is refused rather than guessed at.
 */

/** One company of the list. */
export interface CorpCode {
  corp_code: string;
  corp_name: string;
  /** Six characters for a listed company, '' otherwise. */
  stock_code: string;
  modify_date: string;
}

/** Why the document was refused. */
export class CorpCodeXmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorpCodeXmlError';
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    const named = ENTITIES[ref];
    if (named === undefined) throw new CorpCodeXmlError(`unknown entity ${whole}`);
    return named;
  });
}

/**
 * Root → children: a child holding elements is a record (its fields' text), a child holding
 * text is a field of the root (an error document's status and message).
 * @throws CorpCodeXmlError
 */
export function parseFlatXml(xml: string, root: string): { records: Record<string, string>[]; fields: Record<string, string> } {
  const text = xml.replace(/^\uFEFF/, '').replace(/^\s*<\?xml[^?]*\?>/, '');
  const tag = /<(\/?)([A-Za-z_][\w.-]*)\s*(\/?)>|<!--[\s\S]*?-->|<[!?]/g;
  const stack: string[] = [];
  const records: Record<string, string>[] = [];
  const fields: Record<string, string> = {};
  let child: Record<string, string> | null = null;
  let childHasFields = false;
  let textStart = 0;
  let sawRoot = false;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    const between = text.slice(textStart, m.index);
    textStart = tag.lastIndex;
    if (m[0].startsWith('<!--')) continue;
    if (m[2] === undefined) throw new CorpCodeXmlError('unexpected markup (declarations, CDATA and processing instructions are not expected)');
    if (between.includes('<') || between.includes('>')) throw new CorpCodeXmlError('malformed markup');
    const closing = m[1] === '/';
    const name = m[2];
    const selfClosing = m[3] === '/';
    // Text is allowed only as a field's value: inside a child of the root without elements, or inside a record's field.
    const textAllowed = closing && (stack.length === 3 || (stack.length === 2 && !childHasFields));
    if (!textAllowed && between.trim() !== '') throw new CorpCodeXmlError(`text outside a field: ${JSON.stringify(between.trim().slice(0, 40))}`);
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new CorpCodeXmlError(`</${name}> closes <${open ?? 'nothing'}>`);
      if (stack.length === 2) child![name] = decode(between);
      else if (stack.length === 1) {
        if (childHasFields) records.push(child!);
        else fields[name] = decode(between);
        child = null;
      }
      continue;
    }
    if (stack.length === 0) {
      if (sawRoot) throw new CorpCodeXmlError('more than one root element');
      if (name !== root) throw new CorpCodeXmlError(`root <${name}>, expected <${root}>`);
      sawRoot = true;
    } else if (stack.length === 1) {
      child = {};
      childHasFields = false;
    } else if (stack.length === 2) {
      if (Object.keys(child!).length === 0 && !childHasFields && between.trim() !== '') throw new CorpCodeXmlError('mixed text and elements');
      childHasFields = true;
    } else throw new CorpCodeXmlError(`<${name}> nested deeper than a field`);
    if (selfClosing) {
      if (stack.length === 2) child![name] = '';
      else if (stack.length === 1) {
        fields[name] = '';
        child = null;
      } else throw new CorpCodeXmlError(`<${name}/> as the root`);
      continue;
    }
    stack.push(name);
  }
  if (!sawRoot || stack.length > 0) throw new CorpCodeXmlError(`the document is cut off (${stack.length > 0 ? `<${stack[stack.length - 1]!}> never closed` : 'no root'})`);
  if (text.slice(textStart).trim() !== '') throw new CorpCodeXmlError('text after the root element');
  return { records, fields };
}

/**
 * The companies of CORPCODE.xml.
 * @throws CorpCodeXmlError for a document that is not the list (or a record without its code)
 */
export function parseCorpCodes(xml: string): CorpCode[] {
  const { records } = parseFlatXml(xml, 'result');
  return records.map((r, i) => {
    const code = (r.corp_code ?? '').trim();
    if (!/^\d{8}$/.test(code)) throw new CorpCodeXmlError(`record ${i + 1}: corp_code ${JSON.stringify(r.corp_code ?? null)} is not 8 digits`);
    return { corp_code: code, corp_name: (r.corp_name ?? '').trim(), stock_code: (r.stock_code ?? '').trim(), modify_date: (r.modify_date ?? '').trim() };
  });
}

/** The status and message of an error document (`<result><status>…</status><message>…</message></result>`), or null. */
export function parseStatusXml(xml: string): { status: string; message: string } | null {
  try {
    const { fields } = parseFlatXml(xml, 'result');
    return fields.status === undefined ? null : { status: fields.status.trim(), message: (fields.message ?? '').trim() };
  } catch {
    return null;
  }
}
