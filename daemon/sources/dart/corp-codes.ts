/**
 * OpenDART's company list: CORPCODE.xml inside the corpCode.xml zip
 * (`<result><list><corp_code>00126380</corp_code><corp_name>삼성전자</corp_name>
 * <corp_eng_name>…</corp_eng_name><stock_code>005930</stock_code><modify_date>20230110</modify_date></list>…</result>`;
 * an unlisted company's stock_code is a blank). The same root holds an error instead of the zip:
 * `<result><status>010</status><message>…</message></result>`.
 *
 * The XML is read by saxes (a streaming, strictly well-formed parser: mismatched tags, a document
 * cut off, text after the root, an unknown entity are its errors) and only the flat shape is
 * accepted on top: a root, records, text fields — nested elements, mixed text, CDATA, a DOCTYPE or
 * a processing instruction are refused rather than guessed at. The real list is ~100,000
 * companies (tens of megabytes): it is decoded and parsed a slice at a time, with a turn for other
 * work (HTTP requests, /health) between slices, so the parse never holds the event loop for long.
 */
import { SaxesParser } from 'saxes';

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

/** Bytes decoded and parsed between two turns of the event loop (a millisecond or two of work). */
export const XML_SLICE_BYTES = 64 * 1024;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What a flat document holds besides its records (children holding elements, handed on as each closes): its fields (children holding text). */
interface FlatXml {
  records: number;
  fields: Record<string, string>;
}

/**
 * A saxes parser that builds the flat shape, calling `onRecord` as each record closes.
 * @throws CorpCodeXmlError from write/close for anything but the flat shape
 */
function flatParser(root: string, onRecord: (record: Record<string, string>, index: number) => void): { parser: SaxesParser; result: FlatXml } {
  const parser = new SaxesParser({ xmlns: false });
  const result: FlatXml = { records: 0, fields: {} };
  const stack: string[] = [];
  let child: Record<string, string> = {};
  let childHasFields = false;
  let childText = '';
  let fieldText = '';
  let sawRoot = false;
  const refuse = (message: string): never => {
    throw new CorpCodeXmlError(message);
  };
  parser.on('doctype', () => refuse('unexpected markup (a DOCTYPE is not expected)'));
  parser.on('processinginstruction', () => refuse('unexpected markup (processing instructions are not expected)'));
  parser.on('cdata', () => refuse('unexpected markup (CDATA is not expected)'));
  parser.on('opentag', (tag) => {
    const depth = stack.length;
    if (depth === 0) {
      if (sawRoot) refuse('more than one root element');
      if (tag.name !== root) refuse(`root <${tag.name}>, expected <${root}>`);
      sawRoot = true;
    } else if (depth === 1) {
      child = {};
      childHasFields = false;
      childText = '';
    } else if (depth === 2) {
      if (childText.trim() !== '') refuse('mixed text and elements');
      childHasFields = true;
      fieldText = '';
    } else refuse(`<${tag.name}> nested deeper than a field`);
    stack.push(tag.name);
  });
  parser.on('text', (text) => {
    const depth = stack.length;
    if (depth === 1 && text.trim() !== '') refuse(`text outside a field: ${JSON.stringify(text.trim().slice(0, 40))}`);
    else if (depth === 2) {
      if (childHasFields && text.trim() !== '') refuse('mixed text and elements');
      childText += text;
    } else if (depth === 3) fieldText += text;
  });
  parser.on('closetag', (tag) => {
    stack.pop();
    if (stack.length === 2) child[tag.name] = fieldText;
    else if (stack.length === 1) {
      if (childHasFields) {
        onRecord(child, result.records);
        result.records += 1;
      } else result.fields[tag.name] = childText;
    }
  });
  parser.on('end', () => {
    if (!sawRoot) refuse('the document is cut off (no root)');
  });
  return { parser, result };
}

/** Run `step` on a saxes parser, turning its own errors into CorpCodeXmlError. */
function guarded(step: () => void): void {
  try {
    step();
  } catch (err) {
    if (err instanceof CorpCodeXmlError) throw err;
    const message = (err as Error).message;
    throw new CorpCodeXmlError(/unclosed|unexpected end/i.test(message) ? `the document is cut off (${message})` : message);
  }
}

/**
 * Parse `xml` into the flat shape, a slice at a time with a turn between slices.
 * @throws CorpCodeXmlError
 */
async function parseFlat(xml: string | Uint8Array, root: string, onRecord: (record: Record<string, string>, index: number) => void = () => undefined): Promise<FlatXml> {
  const { parser, result } = flatParser(root, onRecord);
  if (typeof xml === 'string') {
    for (let at = 0; at < xml.length; at += XML_SLICE_BYTES) {
      if (at > 0) await turn();
      const slice = xml.slice(at, at + XML_SLICE_BYTES);
      guarded(() => parser.write(slice));
    }
  } else {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for (let at = 0; at < xml.length; at += XML_SLICE_BYTES) {
      if (at > 0) await turn();
      let text: string;
      try {
        text = decoder.decode(xml.subarray(at, at + XML_SLICE_BYTES), { stream: true });
      } catch {
        throw new CorpCodeXmlError('not UTF-8 text');
      }
      guarded(() => parser.write(text));
    }
    try {
      const rest = decoder.decode();
      if (rest !== '') guarded(() => parser.write(rest));
    } catch (err) {
      if (err instanceof CorpCodeXmlError) throw err;
      throw new CorpCodeXmlError('not UTF-8 text');
    }
  }
  guarded(() => parser.close());
  return result;
}

/**
 * The companies of CORPCODE.xml (text, or its UTF-8 bytes as inflated from the zip).
 * @throws CorpCodeXmlError for a document that is not the list (or a record without its code)
 */
export async function parseCorpCodes(xml: string | Uint8Array): Promise<CorpCode[]> {
  const out: CorpCode[] = [];
  await parseFlat(xml, 'result', (r, i) => {
    const code = (r.corp_code ?? '').trim();
    if (!/^\d{8}$/.test(code)) throw new CorpCodeXmlError(`record ${i + 1}: corp_code ${JSON.stringify(r.corp_code ?? null)} is not 8 digits`);
    out.push({ corp_code: code, corp_name: (r.corp_name ?? '').trim(), stock_code: (r.stock_code ?? '').trim(), modify_date: (r.modify_date ?? '').trim() });
  });
  return out;
}

/** The status and message of an error document (`<result><status>…</status><message>…</message></result>`), or null. */
export async function parseStatusXml(xml: string): Promise<{ status: string; message: string } | null> {
  try {
    const { fields } = await parseFlat(xml, 'result');
    return fields.status === undefined ? null : { status: fields.status.trim(), message: (fields.message ?? '').trim() };
  } catch {
    return null;
  }
}
