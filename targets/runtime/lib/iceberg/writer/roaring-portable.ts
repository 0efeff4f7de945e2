// Roaring bitmaps in the "portable" serialization (RoaringFormatSpec), as Iceberg v3 deletion
// vectors store them: a 64-bit set is a count (8 bytes LE) of 32-bit bitmaps, each a key
// (4 bytes LE, the high half of the positions) and a standard 32-bit Roaring bitmap.
// Written here rather than through the `roaring` package: that is a native addon (an install
// step per platform, kept out of the single-file bundle), for a format of a few dozen lines.
// We write array and bitmap containers only (both always valid); we read run containers too,
// which other engines write. Checked both ways against pyroaring in the tests.

const NO_RUN_COOKIE = 12346;
const RUN_COOKIE = 12347;
/** Run-container files carry the offset header only from this many containers on. */
const NO_OFFSET_THRESHOLD = 4;
const ARRAY_MAX = 4096;
const BITMAP_BYTES = 8192;
const TWO_32 = 2 ** 32;

/** One 32-bit bitmap of sorted, distinct, unsigned 32-bit values. */
function serialize32(values: number[]): Buffer {
  const containers = new Map<number, number[]>();
  for (const v of values) {
    const hi = v >>> 16;
    let c = containers.get(hi);
    if (!c) containers.set(hi, (c = []));
    c.push(v & 0xffff);
  }
  const keys = [...containers.keys()].sort((a, b) => a - b);
  const bodies = keys.map((k) => {
    const lows = containers.get(k)!;
    if (lows.length <= ARRAY_MAX) {
      const b = Buffer.alloc(lows.length * 2);
      lows.forEach((x, i) => b.writeUInt16LE(x, i * 2));
      return b;
    }
    const b = Buffer.alloc(BITMAP_BYTES);
    for (const x of lows) b[x >>> 3]! |= 1 << (x & 7);
    return b;
  });
  const header = Buffer.alloc(8 + keys.length * 8);
  header.writeUInt32LE(NO_RUN_COOKIE, 0);
  header.writeUInt32LE(keys.length, 4);
  let offset = header.length;
  keys.forEach((k, i) => {
    header.writeUInt16LE(k, 8 + i * 4);
    header.writeUInt16LE(containers.get(k)!.length - 1, 10 + i * 4);
    header.writeUInt32LE(offset, 8 + keys.length * 4 + i * 4);
    offset += bodies[i]!.length;
  });
  return Buffer.concat([header, ...bodies]);
}

/** Reads one 32-bit bitmap at `at`; returns its values and where it ends. */
function deserialize32(buf: Buffer, at: number): { values: number[]; end: number } {
  const cookie = buf.readUInt32LE(at);
  let pos = at + 4;
  let size: number;
  let runs: Buffer | null = null;
  if ((cookie & 0xffff) === RUN_COOKIE) {
    size = (cookie >>> 16) + 1;
    runs = buf.subarray(pos, pos + Math.ceil(size / 8));
    pos += runs.length;
  } else if (cookie === NO_RUN_COOKIE) {
    size = buf.readUInt32LE(pos);
    pos += 4;
  } else {
    throw new Error(`not a portable Roaring bitmap (cookie ${cookie})`);
  }
  const keys: number[] = [];
  const cards: number[] = [];
  for (let i = 0; i < size; i++) {
    keys.push(buf.readUInt16LE(pos));
    cards.push(buf.readUInt16LE(pos + 2) + 1);
    pos += 4;
  }
  if (!runs || size >= NO_OFFSET_THRESHOLD) pos += 4 * size;
  const values: number[] = [];
  for (let i = 0; i < size; i++) {
    const base = keys[i]! * 0x10000;
    if (runs && (runs[i >>> 3]! & (1 << (i & 7))) !== 0) {
      const n = buf.readUInt16LE(pos);
      pos += 2;
      for (let r = 0; r < n; r++) {
        const start = buf.readUInt16LE(pos);
        const len = buf.readUInt16LE(pos + 2);
        pos += 4;
        for (let x = start; x <= start + len; x++) values.push(base + x);
      }
    } else if (cards[i]! <= ARRAY_MAX) {
      for (let j = 0; j < cards[i]!; j++) values.push(base + buf.readUInt16LE(pos + j * 2));
      pos += cards[i]! * 2;
    } else {
      for (let byte = 0; byte < BITMAP_BYTES; byte++) {
        const bits = buf[pos + byte]!;
        if (bits) for (let bit = 0; bit < 8; bit++) if (bits & (1 << bit)) values.push(base + byte * 8 + bit);
      }
      pos += BITMAP_BYTES;
    }
  }
  return { values, end: pos };
}

/** Non-negative integer positions (any order, duplicates allowed) → 64-bit portable bytes. */
export function serializeRoaring64(positions: Iterable<number>): Buffer {
  const byKey = new Map<number, number[]>();
  for (const p of new Set(positions)) {
    if (!Number.isSafeInteger(p) || p < 0) throw new Error(`a deletion vector holds non-negative row positions, not ${p}`);
    const key = Math.floor(p / TWO_32);
    let lows = byKey.get(key);
    if (!lows) byKey.set(key, (lows = []));
    lows.push(p % TWO_32);
  }
  const keys = [...byKey.keys()].sort((a, b) => a - b);
  const count = Buffer.alloc(8);
  count.writeBigUInt64LE(BigInt(keys.length));
  const parts: Buffer[] = [count];
  for (const k of keys) {
    const key = Buffer.alloc(4);
    key.writeUInt32LE(k);
    parts.push(key, serialize32(byKey.get(k)!.sort((a, b) => a - b)));
  }
  return Buffer.concat(parts);
}

/** 64-bit portable bytes → positions, ascending. */
export function deserializeRoaring64(buf: Buffer): number[] {
  const count = Number(buf.readBigUInt64LE(0));
  let pos = 8;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const key = buf.readUInt32LE(pos);
    const { values, end } = deserialize32(buf, pos + 4);
    for (const v of values) out.push(key * TWO_32 + v);
    pos = end;
  }
  return out;
}
