/**
 * A zip of many small stored members, written fast for benches (yazl looks for its next entry
 * among all of them, so 200,000 members take it minutes). Member `i` is
 * `dir<i mod 100>/file-<i, 7 digits>.txt` holding `member <i>`; past 65,535 members the
 * archive ends with ZIP64 records, as yazl and gitlab-runner write it.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import CRC32 from 'crc-32';

const BATCH = 1000;
const UTF8_NAMES = 0x0800;
const DOS_TIME = 0;
const DOS_DATE = (2024 - 1980) << 9 | 1 << 5 | 1;

export function memberName(index: number): string {
  return `dir${index % 100}/file-${String(index).padStart(7, '0')}.txt`;
}

export function memberContent(index: number): string {
  return `member ${index}`;
}

export async function writeManyMemberZip(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  const central: Buffer[] = [];
  let offset = 0;
  const write = async (chunks: Buffer[]) => {
    if (!out.write(Buffer.concat(chunks))) await once(out, 'drain');
  };
  for (let start = 0; start < count; start += BATCH) {
    const locals: Buffer[] = [];
    for (let index = start; index < Math.min(count, start + BATCH); index += 1) {
      const name = Buffer.from(memberName(index));
      const data = Buffer.from(memberContent(index));
      const crc = CRC32.buf(data) >>> 0;
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(UTF8_NAMES, 6);
      local.writeUInt16LE(0, 8);
      local.writeUInt16LE(DOS_TIME, 10);
      local.writeUInt16LE(DOS_DATE, 12);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(data.length, 18);
      local.writeUInt32LE(data.length, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(0, 28);
      const record = Buffer.alloc(46);
      record.writeUInt32LE(0x02014b50, 0);
      record.writeUInt16LE((3 << 8) | 20, 4);
      record.writeUInt16LE(20, 6);
      record.writeUInt16LE(UTF8_NAMES, 8);
      record.writeUInt16LE(0, 10);
      record.writeUInt16LE(DOS_TIME, 12);
      record.writeUInt16LE(DOS_DATE, 14);
      record.writeUInt32LE(crc, 16);
      record.writeUInt32LE(data.length, 20);
      record.writeUInt32LE(data.length, 24);
      record.writeUInt16LE(name.length, 28);
      record.writeUInt32LE((0o100644 << 16) >>> 0, 38);
      record.writeUInt32LE(offset, 42);
      central.push(record, name);
      locals.push(local, name, data);
      offset += 30 + name.length + data.length;
    }
    await write(locals);
  }
  const directoryOffset = offset;
  const directorySize = central.reduce((sum, part) => sum + part.length, 0);
  for (let start = 0; start < central.length; start += 2 * BATCH) await write(central.slice(start, start + 2 * BATCH));
  const zip64 = count > 0xffff;
  const tail: Buffer[] = [];
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(directorySize), 40);
    record.writeBigUInt64LE(BigInt(directoryOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(directoryOffset + directorySize), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : count, 8);
  end.writeUInt16LE(zip64 ? 0xffff : count, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(directoryOffset, 16);
  tail.push(end);
  await write(tail);
  out.end();
  await once(out, 'finish');
}
