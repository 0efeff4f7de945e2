// INT and BIGINT arithmetic with Flink's (Java's) overflow: results wrap as 32- and 64-bit
// two's complement, and narrowing casts are Java's primitive casts (integers keep their low
// bits; a DOUBLE saturates, NaN is 0). BIGINT values stay hybrid (values.ts): a plain number
// while the result is provably within 2^53, a BigInt only beyond, so the hot path never
// allocates. INT needs no helper for + - * (`(x + y) | 0`, `Math.imul`); these are the rest.
import { norm64, type Int64 } from './values.ts';

const SAFE = Number.MAX_SAFE_INTEGER;

/** The BIGINT a BigInt result stands for: its low 64 bits, in canonical hybrid form. */
export function wrap64(v: bigint): Int64 {
  return norm64(BigInt.asIntN(64, v));
}

export function addI64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= SAFE && r >= -SAFE) return r;
  }
  return wrap64(BigInt(a) + BigInt(b));
}

export function subI64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (r <= SAFE && r >= -SAFE) return r;
  }
  return wrap64(BigInt(a) - BigInt(b));
}

export function mulI64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    // A rounded product within 2^53 is the exact one (a true product beyond rounds beyond).
    const r = a * b;
    if (r <= SAFE && r >= -SAFE) return r + 0;
  }
  return wrap64(BigInt(a) * BigInt(b));
}

export function negI64(a: Int64): Int64 {
  // -(-2^63) is -2^63 again in 64 bits.
  return typeof a === 'number' ? 0 - a : wrap64(-a);
}

/** BIGINT division truncating toward zero; MIN / -1 wraps to MIN (Java); NULL on division by zero. */
export function divI64(a: Int64, b: Int64): Int64 | null {
  if (b === 0 || b === 0n) return null;
  if (typeof a === 'number' && typeof b === 'number') return Math.trunc(a / b) + 0;
  return wrap64(BigInt(a) / BigInt(b));
}

/**
 * A scaled DECIMAL's integral part, rounded toward zero (Flink's DecimalDataUtils.castToIntegral:
 * RoundingMode.DOWN, then the low 64 bits). Exact for numbers: a quotient of integers below
 * 2^53 never rounds up to the next integer.
 */
export function decimalToIntegral(v: Int64, scale: number): Int64 {
  if (scale === 0) return toInt64(v);
  if (typeof v === 'number') return Math.trunc(v / 10 ** scale) + 0;
  return wrap64(v / 10n ** BigInt(scale));
}

/** CAST(BIGINT AS INT), also after decimalToIntegral: the low 32 bits, as Java's `(int)`. */
export function toInt32(v: Int64): number {
  // `| 0` is exact modulo 2^32 for every integer number up to 2^53.
  return typeof v === 'number' ? v | 0 : Number(BigInt.asIntN(32, v));
}

/** An integer as BIGINT: its low 64 bits, as BigDecimal.longValue(). */
export function toInt64(v: Int64): Int64 {
  return typeof v === 'number' ? v : wrap64(v);
}

/** CAST(DOUBLE AS INT), Java's `(int) d`: truncated, saturated at the range, NaN → 0. */
export function doubleToInt32(d: number): number {
  if (d !== d) return 0;
  if (d >= 2147483647) return 2147483647;
  if (d <= -2147483648) return -2147483648;
  return Math.trunc(d) | 0;
}

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);

/** CAST(DOUBLE AS BIGINT), Java's `(long) d`: truncated, saturated at the range, NaN → 0. */
export function doubleToInt64(d: number): Int64 {
  if (d !== d) return 0;
  const t = Math.trunc(d) + 0;
  if (t <= SAFE && t >= -SAFE) return t;
  // 2^63 is exactly representable; every double at or beyond it saturates.
  if (t >= 9223372036854775808) return I64_MAX;
  if (t <= -9223372036854775808) return I64_MIN;
  return BigInt(t);
}
