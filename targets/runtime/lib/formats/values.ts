// Value conversions shared by the binary formats: two's-complement decimals, 64-bit integers
// into the runtime's hybrid representation (values.ts: a number within 2^53, a BigInt beyond),
// and nested values into JSON-friendly plain data.
import { formatDecimal, norm64, type Int64 } from '../values.ts';

const TWO32 = 4294967296;
/** |hi| below this keeps hi * 2^32 + lo within 2^53. */
const SAFE_HI = 2097152;

/** A big-endian two's-complement integer of any length (Avro decimal, Connect Decimal) as BigInt. */
export function twosComplement(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  let v = 0n;
  for (let i = 0; i < b.length; i++) v = (v << 8n) | BigInt(b[i]!);
  return b[0]! & 0x80 ? v - (1n << BigInt(b.length * 8)) : v;
}

/** Unscaled two's-complement bytes at `scale` → exact decimal text (what readDecimal takes). */
export function connectDecimal(b: Uint8Array, scale: number): string {
  // Up to 6 bytes fit a double exactly: the common money case skips BigInt.
  if (b.length <= 6) {
    let v = 0;
    for (let i = 0; i < b.length; i++) v = v * 256 + b[i]!;
    if (b.length > 0 && b[0]! & 0x80) v -= 256 ** b.length;
    return formatDecimal(v, scale);
  }
  return formatDecimal(norm64(twosComplement(b)), scale);
}

/**
 * Unscaled two's-complement bytes at `scale` → what the DECIMAL readers take fastest: a
 * number when the value has at most 15 significant digits (6 bytes: |v| < 2^47), which the
 * readers scale back to exactly the unscaled integer (any ≤ 15-digit decimal survives a
 * double round trip), else the exact decimal text.
 */
export function decimalValue(b: Uint8Array, scale: number): number | string {
  if (b.length > 6 || scale > 15) return connectDecimal(b, scale);
  let v = 0;
  for (let i = 0; i < b.length; i++) v = v * 256 + b[i]!;
  if (b.length > 0 && b[0]! & 0x80) v -= 256 ** b.length;
  return v / 10 ** scale;
}

/** A 64-bit integer given as its two 32-bit halves (protobufjs Long, LongBits) → Int64. */
export function int64FromBits(lo: number, hi: number, unsigned: boolean): Int64 {
  if (unsigned) {
    const h = hi >>> 0;
    return h < SAFE_HI ? h * TWO32 + (lo >>> 0) : norm64((BigInt(h) << 32n) | BigInt(lo >>> 0));
  }
  if (hi < SAFE_HI && hi >= -SAFE_HI) return hi * TWO32 + (lo >>> 0);
  return norm64((BigInt(hi) << 32n) | BigInt(lo >>> 0));
}

/** Floor division of an Int64 by a power of ten (micro/nanoseconds → milliseconds). */
export function floorDiv(v: Int64, d: number): number {
  if (typeof v === 'number') return Math.floor(v / d);
  const bd = BigInt(d);
  const q = v / bd;
  return Number(v % bd < 0n ? q - 1n : q);
}

/** Bytes inside nested values: base64 text, as BYTES columns and JSON carry them. */
export function base64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}
