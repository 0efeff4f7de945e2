// Partition transforms of the Iceberg table spec: identity, bucket[N] (32-bit Murmur3 of the
// value's hash bytes, x86 variant, seed 0), truncate[W], year/month/day/hour.
import murmur from 'murmurhash3js-revisited';
import { decimalUnscaled, toBigInt, toMicros } from './values.ts';
import { minimalTwosComplement } from './single-value.ts';

const MICROS_PER_HOUR = 3_600_000_000n;
const MICROS_PER_DAY = 86_400_000_000n;

function longBytes(v: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(v);
  return b;
}

/** The bytes the spec hashes for each type (appendix B: ints and dates hash as longs). */
export function hashBytes(type: string, value: unknown): Uint8Array {
  if (type === 'int' || type === 'long' || type === 'date') return longBytes(toBigInt(value as number | bigint));
  if (type === 'timestamp' || type === 'timestamptz') return longBytes(toMicros(value as number | bigint));
  if (type === 'string') return Buffer.from(String(value), 'utf8');
  if (type === 'binary') return value as Uint8Array;
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(type);
  if (dec) return minimalTwosComplement(decimalUnscaled(value as string, Number(dec[2])));
  throw new Error(`bucket is not defined for Iceberg type ${type}`);
}

export function murmur3Hash(bytes: Uint8Array): number {
  // The library returns the unsigned 32-bit hash; the spec works with Java's signed int.
  return murmur.x86.hash32(bytes, 0) | 0;
}

export function bucket(type: string, value: unknown, n: number): number {
  return (murmur3Hash(hashBytes(type, value)) & 0x7fffffff) % n;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

function civilFromDays(days: number): { y: number; m: number } {
  const d = new Date(days * 86_400_000);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth() };
}

/** The result type of a transform applied to a column of `type` (for partition structs). */
export function transformResultType(transform: string, type: string): string {
  if (transform === 'identity' || transform.startsWith('truncate')) return type;
  if (transform.startsWith('bucket') || transform === 'year' || transform === 'month' || transform === 'hour') return 'int';
  if (transform === 'day') return 'date';
  throw new Error(`unknown transform ${transform}`);
}

/** Applies a transform to a non-null value; null stays null for every transform. */
export function applyTransform(transform: string, type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (transform === 'identity') return value;
  const b = /^bucket\[(\d+)\]$/.exec(transform);
  if (b) return bucket(type, value, Number(b[1]));
  const t = /^truncate\[(\d+)\]$/.exec(transform);
  if (t) return truncate(type, value, Number(t[1]));
  const days =
    type === 'date'
      ? BigInt(value as number)
      : floorDiv(toMicros(value as number | bigint), MICROS_PER_DAY);
  switch (transform) {
    case 'day':
      return Number(days);
    case 'hour':
      if (type === 'date') throw new Error('hour is not defined for dates');
      return Number(floorDiv(toMicros(value as number | bigint), MICROS_PER_HOUR));
    case 'month': {
      const { y, m } = civilFromDays(Number(days));
      return (y - 1970) * 12 + m;
    }
    case 'year':
      return civilFromDays(Number(days)).y - 1970;
    default:
      throw new Error(`unknown transform ${transform}`);
  }
}

function truncate(type: string, value: unknown, w: number): unknown {
  if (type === 'int') return Number(value) - (((Number(value) % w) + w) % w);
  if (type === 'long') {
    const v = toBigInt(value as number | bigint);
    const W = BigInt(w);
    const r = v - (((v % W) + W) % W);
    return typeof value === 'bigint' ? r : Number(r);
  }
  if (type === 'string') return Array.from(String(value)).slice(0, w).join('');
  if (type === 'binary') return (value as Uint8Array).slice(0, w);
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(type);
  if (dec) {
    const u = decimalUnscaled(value as string, Number(dec[2]));
    const W = BigInt(w);
    return u - (((u % W) + W) % W);
  }
  throw new Error(`truncate is not defined for Iceberg type ${type}`);
}
