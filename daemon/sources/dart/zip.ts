/**
 * A reader of one named entry of a zip archive held in memory, enough for OpenDART's
 * corpCode.xml answer (a zip holding CORPCODE.xml). It trusts nothing in the archive: the end
 * record is looked for only where the format allows it, every offset and size is checked against
 * the buffer, sizes come from the central directory (a local header written with a data
 * descriptor has zeros there), ZIP64, encryption and methods other than stored (0) and deflate (8)
 * are refused, the inflated size is capped while inflating (a small archive that expands to
 * gigabytes is refused before it does) and must equal the declared size, and the CRC-32 must match.
 */
import { promisify } from 'node:util';
import { crc32, inflateRaw } from 'node:zlib';

/** Inflating runs on libuv's thread pool: tens of megabytes never hold the event loop. */
const inflate = promisify(inflateRaw);

/** Why an archive was refused. */
export class ZipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipError';
  }
}

const EOCD_SIG = 0x06054b50;
const CEN_SIG = 0x02014b50;
const LOC_SIG = 0x04034b50;
const EOCD_MIN = 22;
const CEN_MIN = 46;
const LOC_MIN = 30;
const MAX_COMMENT = 0xffff;
const ZIP64_MARK = 0xffffffff;

/** The end-of-central-directory record: at the end, after a comment of at most 65,535 bytes. */
function findEnd(buf: Buffer): number {
  const lowest = Math.max(0, buf.length - EOCD_MIN - MAX_COMMENT);
  for (let at = buf.length - EOCD_MIN; at >= lowest; at -= 1) {
    if (buf.readUInt32LE(at) === EOCD_SIG && at + EOCD_MIN + buf.readUInt16LE(at + 20) === buf.length) return at;
  }
  throw new ZipError('not a zip archive, or cut off (no end of central directory)');
}

/**
 * The bytes of the entry `name`.
 * @throws ZipError for a truncated or malformed archive, a missing entry, an unsupported method, a size over `maxBytes` or a CRC mismatch
 */
export async function readZipEntry(buf: Buffer, name: string, maxBytes: number): Promise<Buffer> {
  if (buf.length < EOCD_MIN) throw new ZipError('not a zip archive, or cut off (too short)');
  const end = findEnd(buf);
  const entries = buf.readUInt16LE(end + 10);
  const cenSize = buf.readUInt32LE(end + 12);
  const cenOffset = buf.readUInt32LE(end + 16);
  if (cenOffset === ZIP64_MARK || entries === 0xffff) throw new ZipError('ZIP64 archives are not supported');
  if (cenOffset + cenSize > end) throw new ZipError('central directory out of bounds (cut off?)');
  let at = cenOffset;
  for (let i = 0; i < entries; i += 1) {
    if (at + CEN_MIN > end || buf.readUInt32LE(at) !== CEN_SIG) throw new ZipError('malformed central directory');
    const flags = buf.readUInt16LE(at + 8);
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const next = at + CEN_MIN + nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    const localOffset = buf.readUInt32LE(at + 42);
    if (next > end) throw new ZipError('malformed central directory');
    const entryName = buf.toString('utf8', at + CEN_MIN, at + CEN_MIN + nameLen);
    at = next;
    if (entryName !== name) continue;
    if (flags & 1) throw new ZipError(`${name}: encrypted entries are not supported`);
    if (compressed === ZIP64_MARK || size === ZIP64_MARK || localOffset === ZIP64_MARK) throw new ZipError('ZIP64 entries are not supported');
    if (size > maxBytes) throw new ZipError(`${name}: ${size} bytes uncompressed, more than the ${maxBytes} allowed`);
    if (localOffset + LOC_MIN > cenOffset || buf.readUInt32LE(localOffset) !== LOC_SIG) throw new ZipError(`${name}: malformed local header`);
    const dataStart = localOffset + LOC_MIN + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
    if (dataStart + compressed > cenOffset) throw new ZipError(`${name}: data out of bounds (cut off?)`);
    const raw = buf.subarray(dataStart, dataStart + compressed);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) {
      try {
        data = await inflate(raw, { maxOutputLength: Math.max(1, maxBytes) });
      } catch (err) {
        const e = err as Error & { code?: string };
        if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw new ZipError(`${name}: inflates to more than the ${maxBytes} bytes allowed`);
        throw new ZipError(`${name}: corrupt deflate data (${e.code ?? e.message})`);
      }
    } else throw new ZipError(`${name}: compression method ${method} is not supported`);
    if (data.length !== size) throw new ZipError(`${name}: ${data.length} bytes, the directory says ${size}`);
    if (crc32(data) >>> 0 !== crc) throw new ZipError(`${name}: CRC-32 mismatch`);
    return data;
  }
  throw new ZipError(`${name} is not in the archive`);
}
