/**
 * Byte → text decoding for market files: UTF-8 with or without BOM, or the
 * EUC-KR/CP949 that the KRX website and Korean Excel exports use.
 */
import iconv from 'iconv-lite';

/** Encodings `decodeText` can report. */
export type TextEncoding = 'utf-8' | 'cp949';

/** Decoded text and the encoding it was read with. */
export interface DecodedText {
  text: string;
  encoding: TextEncoding;
}

/**
 * Decodes file bytes: a UTF-8 BOM or valid UTF-8 means UTF-8, anything else is
 * read as CP949 (a superset of EUC-KR). With `truncated`, a multi-byte
 * character cut off at the end of `bytes` is tolerated (for sniffing a file's
 * first bytes). Strings pass through with any BOM removed.
 */
export function decodeText(bytes: Uint8Array | string, truncated = false): DecodedText {
  if (typeof bytes === 'string') return { text: stripBom(bytes), encoding: 'utf-8' };
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: new TextDecoder('utf-8').decode(bytes.subarray(3), { stream: truncated }), encoding: 'utf-8' };
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
    return { text, encoding: 'utf-8' };
  } catch {
    return { text: iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'cp949'), encoding: 'cp949' };
  }
}

/** Removes a leading U+FEFF byte-order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The first line of a text (without the line break). */
export function firstLine(text: string): string {
  const end = text.search(/\r?\n/);
  return end < 0 ? text : text.slice(0, end);
}
