// Evaluation of scalar functions on literal values for constant folding, with SQL semantics:
// exact DECIMAL arithmetic (decimal.js, results as exact strings at the result scale),
// integer division truncating toward zero, three-valued logic. Returns undefined whenever the
// value is not certain at compile time (overflow, division by zero, unsupported types), so the
// runtime keeps its own behaviour for those.
import { Decimal } from 'decimal.js';
import type { IrExpr, IrFn, SqlType } from '../ir.ts';

// Wide enough that add/sub/mul of DECIMAL(38, s) operands are exact before rescaling.
const D = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -1000, toExpPos: 1000 });
type Dec = InstanceType<typeof D>;

export type LitValue = string | number | boolean | null;
type Lit = Extract<IrExpr, { kind: 'lit' }>;

const INT_RANGE: Record<'int' | 'bigint', [Dec, Dec]> = {
  int: [new D(-2147483648), new D(2147483647)],
  // Literals carry BIGINT as a JS number: fold only within the exactly representable range.
  bigint: [new D(Number.MIN_SAFE_INTEGER), new D(Number.MAX_SAFE_INTEGER)],
};

function isExactNumeric(t: SqlType): boolean {
  return t.kind === 'int' || t.kind === 'bigint' || t.kind === 'decimal';
}

function toDec(v: LitValue): Dec | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return new D(v);
  if (typeof v === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(v.trim())) return new D(v.trim());
  return undefined;
}

/** A decimal value represented in `type` (int, bigint, decimal, double, float), or undefined if it does not fit. */
export function fromDec(d: Dec, type: SqlType): LitValue | undefined {
  switch (type.kind) {
    case 'int':
    case 'bigint': {
      if (!d.isInteger()) return undefined;
      const [lo, hi] = INT_RANGE[type.kind];
      return d.lt(lo) || d.gt(hi) ? undefined : d.toNumber();
    }
    case 'decimal': {
      const r = d.toDecimalPlaces(type.scale, Decimal.ROUND_HALF_UP);
      const intDigits = r.abs().trunc().isZero() ? 0 : r.abs().trunc().toFixed(0).length;
      if (intDigits > type.precision - type.scale) return undefined;
      return r.toFixed(type.scale);
    }
    case 'double':
      return d.toNumber();
    case 'float':
      return Math.fround(d.toNumber());
    default:
      return undefined;
  }
}

function arith(fn: IrFn, args: LitValue[], type: SqlType): LitValue | undefined {
  if (args.some((a) => a === null)) return null;
  if (type.kind === 'double' || type.kind === 'float') {
    // DOUBLE arithmetic is binary floating point by definition; fold it the same way.
    const xs = args.map((a) => (typeof a === 'number' ? a : typeof a === 'string' ? Number(a) : NaN));
    if (xs.some((x) => !Number.isFinite(x))) return undefined;
    const [a, b] = xs as [number, number];
    let r: number;
    if (fn === 'neg') r = -a;
    else if (fn === 'add') r = a + b;
    else if (fn === 'sub') r = a - b;
    else if (fn === 'mul') r = a * b;
    else if (fn === 'div') r = a / b;
    else if (fn === 'mod') r = a % b;
    else return undefined;
    if (!Number.isFinite(r)) return undefined;
    return type.kind === 'float' ? Math.fround(r) : r;
  }
  if (!isExactNumeric(type)) return undefined;
  const ds = args.map(toDec);
  if (ds.some((d) => d === undefined)) return undefined;
  const [a, b] = ds as [Dec, Dec];
  let r: Dec;
  switch (fn) {
    case 'neg':
      r = a.neg();
      break;
    case 'add':
      r = a.plus(b);
      break;
    case 'sub':
      r = a.minus(b);
      break;
    case 'mul':
      r = a.times(b);
      break;
    case 'div':
      if (b.isZero()) return undefined;
      // Integer division truncates toward zero; DECIMAL division rounds half up at the result scale.
      r = type.kind === 'decimal' ? a.div(b) : a.div(b).trunc();
      break;
    case 'mod':
      if (b.isZero()) return undefined;
      r = a.mod(b);
      break;
    default:
      return undefined;
  }
  return fromDec(r, type);
}

/** -1, 0, 1 for two non-null literals of comparable types; undefined when not comparable here. */
function compare(a: Lit, b: Lit): number | undefined {
  const va = a.value;
  const vb = b.value;
  const numericA = isExactNumeric(a.type) || a.type.kind === 'double' || a.type.kind === 'float';
  const numericB = isExactNumeric(b.type) || b.type.kind === 'double' || b.type.kind === 'float';
  if (numericA && numericB) {
    const da = toDec(va);
    const db = toDec(vb);
    return da && db ? da.cmp(db) : undefined;
  }
  if (a.type.kind !== b.type.kind) return undefined;
  if (typeof va === 'string' && typeof vb === 'string') return va < vb ? -1 : va > vb ? 1 : 0;
  if (typeof va === 'number' && typeof vb === 'number') return va < vb ? -1 : va > vb ? 1 : 0;
  if (typeof va === 'boolean' && typeof vb === 'boolean') return Number(va) - Number(vb);
  return undefined;
}

/** Value of `fn` applied to literal arguments, or undefined when it is not folded. */
export function evalCall(fn: IrFn, args: Lit[], type: SqlType): LitValue | undefined {
  const vals = args.map((a) => a.value);
  switch (fn) {
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'mod':
    case 'neg':
      return arith(fn, vals, type);
    case 'eq':
    case 'ne':
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      if (vals[0] === null || vals[1] === null) return null;
      const c = compare(args[0]!, args[1]!);
      if (c === undefined) return undefined;
      return { eq: c === 0, ne: c !== 0, lt: c < 0, le: c <= 0, gt: c > 0, ge: c >= 0 }[fn];
    }
    case 'not':
      return vals[0] === null ? null : typeof vals[0] === 'boolean' ? !vals[0] : undefined;
    case 'is_null':
      return vals[0] === null;
    case 'is_not_null':
      return vals[0] !== null;
    case 'in':
    case 'not_in': {
      if (vals[0] === null) return null;
      let sawNull = false;
      for (const item of args.slice(1)) {
        if (item.value === null) {
          sawNull = true;
          continue;
        }
        const c = compare(args[0]!, item);
        if (c === undefined) return undefined;
        if (c === 0) return fn === 'in';
      }
      return sawNull ? null : fn === 'not_in';
    }
    case 'concat':
      if (vals.some((v) => v === null)) return null;
      return vals.every((v) => typeof v === 'string') ? (vals as string[]).join('') : undefined;
    case 'lower':
    case 'upper':
      if (vals[0] === null) return null;
      if (typeof vals[0] !== 'string') return undefined;
      return fn === 'lower' ? vals[0].toLowerCase() : vals[0].toUpperCase();
    default:
      return undefined;
  }
}

/** A CAST of a literal between numeric types (and NULL to anything); undefined otherwise. */
export function evalCast(operand: Lit, type: SqlType): LitValue | undefined {
  if (operand.value === null) return null;
  const from = operand.type;
  if (from.kind === 'string' && type.kind === 'string') return operand.value;
  const numericFrom = isExactNumeric(from) || from.kind === 'double' || from.kind === 'float';
  if (!numericFrom) return undefined;
  const d = toDec(operand.value);
  if (!d) return undefined;
  // Casting a fraction to an integer type truncates in SQL engines; leave those to the runtime.
  if ((type.kind === 'int' || type.kind === 'bigint') && !d.isInteger()) return undefined;
  return fromDec(d, type);
}
