import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { redactSecrets } from './variables.ts';

/**
 * A Playwright trace holds what the page held: the DOM snapshots keep every input's value
 * (`__playwright_value_`, a password field's too), and the network log keeps request
 * bodies (a sign-in's POST). Reports mask secrets; this masks them in the trace zip too,
 * before it is stored: every text entry with a secret's value gets *** in its place, as
 * redactSecrets does for report text. Binary entries (screenshots, images) are kept as
 * they are: a secret drawn in pixels cannot be found by its bytes.
 *
 * The zip is read from its central directory and written anew (stored entries stay
 * stored, others are deflated); entries without a secret keep their bytes.
 */
export function redactTraceZip(zip: Uint8Array, secrets: Record<string, string>): Uint8Array {
  const values = Object.values(secrets).filter((s) => s.length >= 4);
  if (!values.length) return zip;
  const entries = readZip(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
  if (!entries) return zip; // not a zip this reader knows (zip64, encrypted): kept, not broken
  let changed = false;
  for (const entry of entries) {
    const data = entry.method === 8 ? inflateRawSync(entry.compressed) : entry.compressed;
    if (!values.some((v) => data.includes(v) || data.includes(JSON.stringify(v).slice(1, -1)))) continue;
    const text = data.toString('utf8');
    if (text.includes('\uFFFD')) continue; // not text: left alone
    const redacted = Buffer.from(redactSecrets(redactSecrets(text, secrets), jsonEscaped(secrets)), 'utf8');
    entry.compressed = entry.method === 8 ? deflateRawSync(redacted) : redacted;
    entry.crc = crc32(redacted);
    entry.size = redacted.length;
    changed = true;
  }
  return changed ? writeZip(entries) : zip;
}

/** The secrets as they appear inside JSON strings (a quote or backslash escaped). */
function jsonEscaped(secrets: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, JSON.stringify(v).slice(1, -1)]));
}

interface ZipEntry {
  name: Buffer;
  method: number;
  crc: number;
  size: number;
  compressed: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function readZip(zip: Buffer): ZipEntry[] | undefined {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || zip.readUInt32LE(eocd) !== EOCD) return undefined;
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== CENTRAL) return undefined;
    const flags = zip.readUInt16LE(p + 8);
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    const compressedSize = zip.readUInt32LE(p + 20);
    const size = zip.readUInt32LE(p + 24);
    const nameLength = zip.readUInt16LE(p + 28);
    const extraLength = zip.readUInt16LE(p + 30);
    const commentLength = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    if ((flags & 1) || (method !== 0 && method !== 8) || compressedSize === 0xffffffff || zip.readUInt32LE(local) !== LOCAL) return undefined;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.push({ name: zip.subarray(p + 46, p + 46 + nameLength), method, crc, size, compressed: zip.subarray(start, start + compressedSize) });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function writeZip(entries: ZipEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.crc, 14);
    local.writeUInt32LE(e.compressed.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(e.name.length, 26);
    parts.push(local, e.name, e.compressed);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(CENTRAL, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(e.method, 10);
    header.writeUInt32LE(e.crc, 16);
    header.writeUInt32LE(e.compressed.length, 20);
    header.writeUInt32LE(e.size, 24);
    header.writeUInt16LE(e.name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, e.name);
    offset += 30 + e.name.length + e.compressed.length;
  }
  const centralBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, centralBytes, end]));
}
