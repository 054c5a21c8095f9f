/**
 * One named entry of a zip archive held in memory, enough for OpenDART's corpCode.xml answer (a
 * zip holding CORPCODE.xml), read with yauzl. yauzl parses the end record and the central
 * directory, checks every offset against the buffer and, with `validateEntrySizes`, fails an
 * entry that inflates to more or fewer bytes than its directory record declares. On top of it
 * this reader trusts nothing in the archive: at most MAX_ENTRIES entries, no encryption, only
 * stored (0) and deflate (8), a declared size over the cap refused before inflating, the bytes
 * counted while inflating (a small archive that expands to gigabytes is stopped at the cap, not
 * after), and the CRC-32 compared (yauzl does not).
 */
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/** Why an archive was refused. */
export class ZipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipError';
  }
}

/** Most entries an archive may list (OpenDART's holds one): a directory of thousands is not the answer. */
export const MAX_ENTRIES = 64;

/** The archive's entries, one at a time, until `pick` returns a value (or the directory ends: null). */
function findEntry<T>(zip: ZipFile, pick: (entry: Entry) => Promise<T | null>): Promise<T | null> {
  return new Promise<T | null>((resolve, reject) => {
    const finish = (err: Error | null, value: T | null = null) => {
      zip.removeAllListeners('entry').removeAllListeners('end');
      // Errors after the answer (an entry we no longer read) are not this call's.
      zip.removeAllListeners('error').on('error', () => undefined);
      zip.close();
      if (err) reject(err);
      else resolve(value);
    };
    zip.on('error', (err: Error) => finish(err));
    zip.on('end', () => finish(null));
    zip.on('entry', (entry: Entry) => {
      pick(entry).then((value) => (value === null ? zip.readEntry() : finish(null, value)), (err: Error) => finish(err));
    });
    zip.readEntry();
  });
}

/** Inflate one entry, stopping at `maxBytes`, with the CRC-32 of what came out (computed chunk by chunk, as it arrives). */
async function inflateEntry(zip: ZipFile, entry: Entry, maxBytes: number): Promise<{ bytes: Buffer; crc: number }> {
  const name = entry.fileName;
  const stream = await zip.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  let size = 0;
  let crc = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        stream.destroy();
        throw new ZipError(`${name}: inflates to more than the ${maxBytes} bytes allowed`);
      }
      chunks.push(chunk as Buffer);
      crc = crc32(chunk as Buffer, crc);
    }
  } catch (err) {
    if (err instanceof ZipError) throw err;
    const message = (err as Error).message;
    // yauzl's validateEntrySizes: the data goes on past (or stops short of) the size the directory declares.
    if (/too many bytes/i.test(message)) throw new ZipError(`${name}: inflates to more than the ${entry.uncompressedSize} bytes it declares`);
    throw new ZipError(`${name}: corrupt data (${message})`);
  }
  return { bytes: Buffer.concat(chunks, size), crc: crc >>> 0 };
}

/**
 * The bytes of the entry `name`.
 * @throws ZipError for a truncated or malformed archive, a missing entry, an unsupported method, a size over `maxBytes` or a CRC mismatch
 */
export async function readZipEntry(buf: Buffer, name: string, maxBytes: number): Promise<Buffer> {
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buf, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, strictFileNames: false });
  } catch (err) {
    const message = (err as Error).message;
    if (/end of central directory/i.test(message)) throw new ZipError('not a zip archive, or cut off (no end of central directory)');
    throw new ZipError(`not a readable zip archive (${message})`);
  }
  if (zip.entryCount > MAX_ENTRIES) {
    zip.close();
    throw new ZipError(`${zip.entryCount} entries, more than the ${MAX_ENTRIES} allowed`);
  }
  let data: Buffer | null;
  try {
    data = await findEntry(zip, async (entry) => {
      if (entry.fileName !== name) return null;
      if (entry.isEncrypted()) throw new ZipError(`${name}: encrypted entries are not supported`);
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw new ZipError(`${name}: compression method ${entry.compressionMethod} is not supported`);
      if (entry.uncompressedSize > maxBytes) throw new ZipError(`${name}: ${entry.uncompressedSize} bytes uncompressed, more than the ${maxBytes} allowed`);
      const { bytes, crc } = await inflateEntry(zip, entry, maxBytes);
      if (crc !== entry.crc32 >>> 0) throw new ZipError(`${name}: CRC-32 mismatch`);
      return bytes;
    });
  } catch (err) {
    if (err instanceof ZipError) throw err;
    throw new ZipError(`malformed archive (${(err as Error).message})`);
  }
  if (data === null) throw new ZipError(`${name} is not in the archive`);
  return data;
}
