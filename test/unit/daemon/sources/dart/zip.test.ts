/** The single-entry zip reader: stored and deflated entries, and every malformed archive refused with a reason. */
import { describe, expect, it } from 'vitest';
import { MAX_ENTRIES, readZipEntry, ZipError } from '../../../../../daemon/sources/dart/zip.js';
import { writeZip } from '../../../../fakes/zip-writer.js';

const XML = Buffer.from('<?xml version="1.0" encoding="UTF-8"?><result><list><corp_code>00126380</corp_code></list></result>', 'utf8');
const MB = 2 ** 20;

describe('readZipEntry', () => {
  it('reads a deflated and a stored entry by name, beside others', async () => {
    const zip = writeZip([{ name: 'README.txt', data: Buffer.from('x'), method: 0 }, { name: 'CORPCODE.xml', data: XML }]);
    expect((await readZipEntry(zip, 'CORPCODE.xml', MB)).equals(XML)).toBe(true);
    expect((await readZipEntry(writeZip([{ name: 'CORPCODE.xml', data: XML, method: 0 }]), 'CORPCODE.xml', MB)).equals(XML)).toBe(true);
  });

  it('refuses an archive cut off anywhere', async () => {
    const zip = writeZip([{ name: 'CORPCODE.xml', data: Buffer.concat(Array.from({ length: 200 }, () => XML)) }]);
    for (const keep of [0, 10, 40, Math.floor(zip.length / 2), zip.length - 30, zip.length - 1]) {
      await expect(readZipEntry(zip.subarray(0, keep), 'CORPCODE.xml', MB)).rejects.toThrow(ZipError);
    }
  });

  it('refuses what is not a zip: an HTML page, a JSON error', async () => {
    await expect(readZipEntry(Buffer.from('<html><body>점검 중</body></html>'), 'CORPCODE.xml', MB)).rejects.toThrow(/not a zip/);
    await expect(readZipEntry(Buffer.from('{"status":"010","message":"등록되지 않은 키입니다."}'), 'CORPCODE.xml', MB)).rejects.toThrow(/not a zip/);
  });

  it('refuses a missing entry, a CRC mismatch and a size that lies', async () => {
    await expect(readZipEntry(writeZip([{ name: 'OTHER.xml', data: XML }]), 'CORPCODE.xml', MB)).rejects.toThrow(/not in the archive/);
    await expect(readZipEntry(writeZip([{ name: 'CORPCODE.xml', data: XML, declaredCrc: 1234 }]), 'CORPCODE.xml', MB)).rejects.toThrow(/CRC-32/);
    await expect(readZipEntry(writeZip([{ name: 'CORPCODE.xml', data: XML, declaredSize: 10 }]), 'CORPCODE.xml', MB)).rejects.toThrow(ZipError);
  });

  it('refuses an archive listing more entries than an answer holds, and an unsupported method', async () => {
    const many = writeZip(Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => ({ name: i === 0 ? 'CORPCODE.xml' : `f${i}.txt`, data: Buffer.from('x'), method: 0 as const })));
    await expect(readZipEntry(many, 'CORPCODE.xml', MB)).rejects.toThrow(/entries, more than the/);
    const bzip = writeZip([{ name: 'CORPCODE.xml', data: XML, method: 0 }]);
    // The method field of the local header (offset 8) and of the central directory record (offset 10)
    const cen = bzip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bzip.writeUInt16LE(12, 8);
    bzip.writeUInt16LE(12, cen + 10);
    await expect(readZipEntry(bzip, 'CORPCODE.xml', MB)).rejects.toThrow(/compression method 12/);
  });

  it('refuses a zip bomb: a small archive that inflates past the cap, whatever size it declares', async () => {
    const huge = Buffer.alloc(16 * MB, 0x20);
    const honest = writeZip([{ name: 'CORPCODE.xml', data: huge }]);
    expect(honest.length).toBeLessThan(MB);
    await expect(readZipEntry(honest, 'CORPCODE.xml', MB)).rejects.toThrow(/more than the/);
    const lying = writeZip([{ name: 'CORPCODE.xml', data: huge, declaredSize: 100 }]);
    await expect(readZipEntry(lying, 'CORPCODE.xml', MB)).rejects.toThrow(/more than the/);
  });
});
