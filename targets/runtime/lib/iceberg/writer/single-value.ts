// Binary single-value serialization (Iceberg table spec, appendix D): how lower/upper bounds
// in manifests and partition summaries are stored. Little-endian numbers, UTF-8 strings,
// big-endian two's-complement decimals in the fewest bytes.
import { decimalUnscaled, toBigInt, toMicros } from './values.ts';

export function serializeSingleValue(type: string, value: unknown): Uint8Array {
  if (type === 'boolean') return Uint8Array.of(value ? 1 : 0);
  if (type === 'int' || type === 'date') {
    const b = Buffer.alloc(4);
    b.writeInt32LE(Number(value));
    return b;
  }
  if (type === 'long') {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(toBigInt(value as number | bigint));
    return b;
  }
  if (type === 'timestamp' || type === 'timestamptz') {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(toMicros(value as number | bigint));
    return b;
  }
  if (type === 'float') {
    const b = Buffer.alloc(4);
    b.writeFloatLE(Number(value));
    return b;
  }
  if (type === 'double') {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(Number(value));
    return b;
  }
  if (type === 'string') return Buffer.from(String(value), 'utf8');
  if (type === 'binary') return value as Uint8Array;
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(type);
  if (dec) return minimalTwosComplement(decimalUnscaled(value as string, Number(dec[2])));
  throw new Error(`no single-value serialization for Iceberg type ${type}`);
}

/** Big-endian two's complement in the minimum number of bytes (Java BigInteger.toByteArray). */
export function minimalTwosComplement(n: bigint): Uint8Array {
  const bytes: number[] = [];
  let v = n;
  for (;;) {
    const byte = Number(v & 0xffn);
    bytes.unshift(byte);
    v >>= 8n;
    const signBitSet = (byte & 0x80) !== 0;
    if ((v === 0n && !signBitSet) || (v === -1n && signBitSet)) break;
  }
  return Uint8Array.from(bytes);
}

/**
 * Bytes of an Avro `fixed` / Parquet FIXED_LEN_BYTE_ARRAY decimal of `precision` digits: the
 * smallest n with 2^(8n-1) > 10^precision (Iceberg Java's TypeUtil.decimalRequiredBytes;
 * 6 for decimal(12,2), 16 for decimal(38,s)).
 */
export function decimalRequiredBytes(precision: number): number {
  let n = 1;
  while (2n ** BigInt(8 * n - 1) <= 10n ** BigInt(precision)) n++;
  return n;
}

/** `n` in `size` bytes, big-endian two's complement (sign-extended). */
export function decimalFixedBytes(n: bigint, size: number): Buffer {
  const b = Buffer.alloc(size);
  let v = BigInt.asUintN(size * 8, n);
  for (let i = size - 1; i >= 0; i--) {
    b[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return b;
}

/** Big-endian two's complement bytes → the integer (any length; empty is 0). */
export function twosComplementToBigInt(b: Uint8Array): bigint {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return b.length && (b[0]! & 0x80) ? n - (1n << BigInt(8 * b.length)) : n;
}
