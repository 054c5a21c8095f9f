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

const TAGS_PER_TURN = 2000;

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
export async function parseFlatXml(xml: string, root: string): Promise<{ records: Record<string, string>[]; fields: Record<string, string> }> {
  const text = xml;
  // Start after a byte-order mark and the XML declaration (no copy of a document of tens of megabytes).
  const declaration = /^\uFEFF?\s*(<\?xml[^?]*\?>)?/.exec(xml);
  const tag = /<(\/?)([A-Za-z_][\w.-]*)\s*(\/?)>|<!--[\s\S]*?-->|<[!?]/g;
  tag.lastIndex = declaration?.[0].length ?? 0;
  const stack: string[] = [];
  const records: Record<string, string>[] = [];
  const fields: Record<string, string> = {};
  let child: Record<string, string> | null = null;
  let childHasFields = false;
  let textStart = tag.lastIndex;
  let sawRoot = false;
  let seen = 0;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    // The real list is ~100,000 companies (seconds of parsing): other work gets a turn every few thousand tags.
    if (++seen % TAGS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
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

/** Bytes as UTF-8 text, a megabyte at a time with a turn for other work between (tens of megabytes otherwise hold the event loop). */
export async function decodeInTurns(bytes: Uint8Array): Promise<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const step = 2 ** 20;
  let text = '';
  for (let at = 0; at < bytes.length; at += step) {
    text += decoder.decode(bytes.subarray(at, at + step), { stream: at + step < bytes.length });
    if (at + step < bytes.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return text + decoder.decode();
}

/**
 * The companies of CORPCODE.xml.
 * @throws CorpCodeXmlError for a document that is not the list (or a record without its code)
 */
export async function parseCorpCodes(xml: string | Uint8Array): Promise<CorpCode[]> {
  let text: string;
  try {
    text = typeof xml === 'string' ? xml : await decodeInTurns(xml);
  } catch {
    throw new CorpCodeXmlError('not UTF-8 text');
  }
  const { records } = await parseFlatXml(text, 'result');
  const out: CorpCode[] = [];
  for (const [i, r] of records.entries()) {
    if (i % TAGS_PER_TURN === TAGS_PER_TURN - 1) await new Promise<void>((resolve) => setImmediate(resolve));
    const code = (r.corp_code ?? '').trim();
    if (!/^\d{8}$/.test(code)) throw new CorpCodeXmlError(`record ${i + 1}: corp_code ${JSON.stringify(r.corp_code ?? null)} is not 8 digits`);
    out.push({ corp_code: code, corp_name: (r.corp_name ?? '').trim(), stock_code: (r.stock_code ?? '').trim(), modify_date: (r.modify_date ?? '').trim() });
  }
  return out;
}

/** The status and message of an error document (`<result><status>…</status><message>…</message></result>`), or null. */
export async function parseStatusXml(xml: string): Promise<{ status: string; message: string } | null> {
  try {
    const { fields } = await parseFlatXml(xml, 'result');
    return fields.status === undefined ? null : { status: fields.status.trim(), message: (fields.message ?? '').trim() };
  } catch {
    return null;
  }
}
