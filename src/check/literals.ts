// Literal typing: numbers (INT, BIGINT, exact DECIMAL, DOUBLE), TIMESTAMP/DATE literals as
// epoch milliseconds/days, and implicit conversion of operands to a common type.
import type { IrExpr } from '../plan/ir.ts';
import { T, sameType, withNullable, type SqlType } from '../types/sql-type.ts';
import { MAX_DECIMAL_PRECISION } from './type-rules.ts';

const INT_MAX = 2n ** 31n - 1n;
const BIGINT_MAX = 2n ** 63n - 1n;

/** Types a numeric literal as Flink does: INT, then BIGINT, then DECIMAL(p, 0); `1.50` is DECIMAL(3, 2); `1e3` DOUBLE. */
export function numberLiteral(text: string): IrExpr | null {
  if (/^\d+$/.test(text)) {
    const v = BigInt(text);
    if (v <= INT_MAX) return { kind: 'lit', value: Number(v), type: T.int(false) };
    if (v <= BIGINT_MAX) return { kind: 'lit', value: v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString(), type: T.bigint(false) };
    const digits = text.replace(/^0+/, '').length;
    if (digits > MAX_DECIMAL_PRECISION) return null;
    return { kind: 'lit', value: v.toString(), type: T.decimal(digits, 0, false) };
  }
  const dec = /^(\d*)\.(\d*)$/.exec(text);
  if (dec && (dec[1]!.length > 0 || dec[2]!.length > 0)) {
    const intPart = dec[1]!.replace(/^0+/, '');
    const frac = dec[2]!;
    const scale = frac.length;
    const precision = Math.max(intPart.length + scale, 1);
    if (precision > MAX_DECIMAL_PRECISION) return null;
    const value = `${intPart || '0'}${scale > 0 ? `.${frac}` : ''}`;
    return { kind: 'lit', value, type: T.decimal(precision, scale, false) };
  }
  if (/^(\d+\.?\d*|\.\d+)[eE][-+]?\d+$/.test(text)) {
    const v = Number(text);
    return Number.isFinite(v) ? { kind: 'lit', value: v, type: T.double(false) } : null;
  }
  return null;
}

const TS = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;

/** `'2024-05-01 12:00:00.250'` (UTC) → epoch ms and precision (fraction digits); null when invalid. */
export function parseTimestampLiteral(text: string): { ms: number; precision: number } | null {
  const m = TS.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => x ?? '0') as string[];
  const frac = m[7] ?? '';
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number((frac + '000').slice(0, 3)));
  const check = new Date(ms);
  if (
    Number.isNaN(ms) ||
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  )
    return null;
  return { ms, precision: frac.length };
}

/** `'2024-05-01'` → days since 1970-01-01; null when invalid. */
export function parseDateLiteral(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text.trim())) return null;
  const p = parseTimestampLiteral(text);
  return p ? Math.floor(p.ms / 86_400_000) : null;
}

/**
 * Converts `e` to `target` (nullability of `e` kept): unchanged when the types already agree,
 * a re-typed literal for numeric literals, an explicit `cast` otherwise. Targets never see
 * operands of mixed numeric types.
 */
export function coerce(e: IrExpr, target: SqlType): IrExpr {
  const t = withNullable(target, e.type.nullable);
  if (sameType(e.type, t, true)) return e;
  if (e.kind === 'lit' && e.value === null) return { kind: 'lit', value: null, type: withNullable(target, true) };
  if (e.kind === 'lit' && typeof e.value !== 'boolean' && e.value !== null) {
    const fromInt = e.type.kind === 'int' || e.type.kind === 'bigint';
    if ((fromInt || e.type.kind === 'decimal') && t.kind === 'decimal' && fitsDecimal(String(e.value), t.precision, t.scale)) return { kind: 'lit', value: String(e.value), type: t };
    if (fromInt && t.kind === 'bigint') return { kind: 'lit', value: e.value, type: t };
    if ((fromInt || e.type.kind === 'decimal') && (t.kind === 'double' || t.kind === 'float')) return { kind: 'lit', value: Number(e.value), type: t };
  }
  return { kind: 'cast', operand: e, type: t };
}

/** Whether an exact decimal string is representable in DECIMAL(p, s) without rounding. */
function fitsDecimal(v: string, p: number, s: number): boolean {
  const m = /^-?(\d*)(?:\.(\d*))?$/.exec(v);
  if (!m) return false;
  const intDigits = m[1]!.replace(/^0+/, '').length;
  const frac = (m[2] ?? '').replace(/0+$/, '').length;
  return frac <= s && intDigits <= p - s;
}
