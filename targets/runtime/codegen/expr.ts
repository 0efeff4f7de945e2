// Compiles IR expressions to JavaScript expressions over row arrays. NOT NULL operands get
// plain JS operators; nullable ones get inline NULL checks through function-local temporaries
// (no closures, no allocation per event).
import type { IrExpr, IrFn, SqlType } from '../../../src/plan/ir.ts';
import { assertNever } from '../../../src/util/assert-never.ts';
import { convertCode, domainOf, scaleOf, textValueCode } from './js-types.ts';
import { jsString } from './js-text.ts';

export interface ExprScope {
  /** JS code reading column `name` of input `input` (e.g. `r[3]`), with its type. */
  column(input: number, name: string): { code: string; type: SqlType };
  /** Allocates a function-local temporary variable name. */
  temp(): string;
}

export interface Compiled {
  code: string;
  type: SqlType;
}

const T_DOUBLE: SqlType = { kind: 'double', nullable: true };

export function compileExpr(e: IrExpr, s: ExprScope): Compiled {
  switch (e.kind) {
    case 'col':
      return s.column(e.input, e.name);
    case 'lit':
      return { code: literal(e.value, e.type), type: e.type };
    case 'cast': {
      const x = compileExpr(e.operand, s);
      return { code: nullSafe1(x, (v) => convertCode(v, x.type, e.type), s), type: e.type };
    }
    case 'case': {
      let code = e.else ? coerce(compileExpr(e.else, s), e.type, s) : 'null';
      for (let i = e.whens.length - 1; i >= 0; i--) {
        const w = e.whens[i]!;
        code = `(${compileExpr(w.when, s).code} === true ? ${coerce(compileExpr(w.then, s), e.type, s)} : ${code})`;
      }
      return { code, type: e.type };
    }
    case 'call':
      return { code: compileCall(e, s), type: e.type };
    default:
      return assertNever(e);
  }
}

function literal(value: string | number | boolean | null, t: SqlType): string {
  if (value === null) return 'null';
  switch (t.kind) {
    case 'decimal': {
      const digits = scaledDigits(String(value), t.scale);
      return safeIntLiteral(digits);
    }
    case 'bigint':
      return safeIntLiteral(String(value));
    case 'string':
    case 'bytes':
      return jsString(String(value));
    case 'boolean':
      return value === true || value === 'true' ? 'true' : 'false';
    default:
      return String(Number(value));
  }
}

/** The scaled integer digits of an exact decimal text. */
function scaledDigits(text: string, scale: number): string {
  const neg = text.startsWith('-');
  const [i = '0', f = ''] = text.replace(/^[+-]/, '').split('.');
  const digits = (i + f.padEnd(scale, '0').slice(0, scale)).replace(/^0+(?=\d)/, '');
  return (neg && /[1-9]/.test(digits) ? '-' : '') + digits;
}

function safeIntLiteral(digits: string): string {
  const b = BigInt(digits);
  return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= -BigInt(Number.MAX_SAFE_INTEGER) ? String(b) : `${b}n`;
}

/** Converts compiled code to type `to`, keeping NULL as NULL. */
export function coerce(x: Compiled, to: SqlType, s: ExprScope): string {
  if (x.type.kind === 'null') return 'null';
  return nullSafe1(x, (v) => convertCode(v, x.type, to), s);
}

function nullSafe1(x: Compiled, f: (v: string) => string, s: ExprScope): string {
  const probe = f('$');
  if (probe === '$') return x.code;
  if (!x.type.nullable) return f(`(${x.code})`);
  const t = s.temp();
  return `((${t} = ${x.code}) === null ? null : ${f(t)})`;
}

function nullSafeN(xs: Compiled[], f: (vs: string[]) => string, s: ExprScope): string {
  if (xs.some((x) => x.type.kind === 'null')) return 'null';
  const vs: string[] = [];
  const checks: string[] = [];
  for (const x of xs) {
    if (!x.type.nullable) vs.push(`(${x.code})`);
    else {
      const t = s.temp();
      vs.push(t);
      checks.push(`(${t} = ${x.code}) === null`);
    }
  }
  return checks.length === 0 ? `(${f(vs)})` : `(${checks.join(' || ')} ? null : ${f(vs)})`;
}

/** The common type two operands are compared or combined in. */
function unify(a: SqlType, b: SqlType): SqlType {
  if (a.kind === b.kind && (a.kind !== 'decimal' || scaleOf(a) === scaleOf(b))) return a;
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  const num = (t: SqlType) => ['int', 'bigint', 'float', 'double', 'decimal'].includes(t.kind);
  if (num(a) && num(b)) {
    if (a.kind === 'double' || a.kind === 'float' || b.kind === 'double' || b.kind === 'float') return T_DOUBLE;
    if (a.kind === 'decimal' || b.kind === 'decimal') return { kind: 'decimal', precision: 38, scale: Math.max(scaleOf(a), scaleOf(b)), nullable: true };
    return { kind: 'bigint', nullable: true };
  }
  return a;
}

const CMP: Record<string, string> = { eq: '===', ne: '!==', lt: '<', le: '<=', gt: '>', ge: '>=' };

/** One call's compiled arguments (`a0`, `a1`: the first two), its result type and scope. */
interface Call {
  e: Extract<IrExpr, { kind: 'call' }>;
  args: Compiled[];
  a0: Compiled;
  a1: Compiled;
  rt: SqlType;
  s: ExprScope;
}

function compare({ e, a0, a1, s }: Call): string {
  const u = unify(a0.type, a1.type);
  const l = { code: coerce(a0, u, s), type: a0.type };
  const r = { code: coerce(a1, u, s), type: a1.type };
  const op = CMP[e.fn]!;
  if (domainOf(u) === 'bool' && op !== '===' && op !== '!==') return nullSafeN([l, r], ([x, y]) => `rt.sql.cmp(${x}, ${y}) ${op} 0`, s);
  // Strings order by code point (JS's `<` compares UTF-16 units); equality is the same either way.
  if (domainOf(u) === 'str' && op !== '===' && op !== '!==') return nullSafeN([l, r], ([x, y]) => `rt.compareStrings(${x}, ${y}) ${op} 0`, s);
  return nullSafeN([l, r], ([x, y]) => `${x} ${op} ${y}`, s);
}

function inList({ e, args, a0, s }: Call): string {
  let u = a0.type;
  for (const x of args.slice(1)) u = unify(u, x.type);
  const list = args.slice(1).map((x) => coerce(x, u, s));
  const code = `rt.sql.inList(${coerce(a0, u, s)}, [${list.join(', ')}])`;
  return e.fn === 'in' ? code : `rt.sql.not(${code})`;
}

const arithmetic = ({ e, a0, a1, rt, s }: Call): string => arith(e.fn as 'add' | 'sub' | 'mul' | 'div' | 'mod', a0, a1, rt, s);
const unit = (e: Call['e']): string => jsString(e.unit ?? 'day');

/** Every scalar function, as JavaScript over its compiled arguments (exhaustive: a new IrFn must be added here). */
const FUNCTIONS: Record<IrFn, (c: Call) => string> = {
  eq: compare,
  ne: compare,
  lt: compare,
  le: compare,
  gt: compare,
  ge: compare,
  and: ({ a0, a1 }) => (a0.type.nullable || a1.type.nullable ? `rt.sql.and(${a0.code}, ${a1.code})` : `(${a0.code} && ${a1.code})`),
  or: ({ a0, a1 }) => (a0.type.nullable || a1.type.nullable ? `rt.sql.or(${a0.code}, ${a1.code})` : `(${a0.code} || ${a1.code})`),
  not: ({ a0 }) => (a0.type.nullable ? `rt.sql.not(${a0.code})` : `(!${a0.code})`),
  is_null: ({ a0 }) => (a0.type.nullable ? `(${a0.code} === null)` : 'false'),
  is_not_null: ({ a0 }) => (a0.type.nullable ? `(${a0.code} !== null)` : 'true'),
  in: inList,
  not_in: inList,
  like: ({ a0, a1 }) => `rt.sql.like(${a0.code}, ${a1.code})`,
  not_like: ({ a0, a1 }) => `rt.sql.not(rt.sql.like(${a0.code}, ${a1.code}))`,
  add: arithmetic,
  sub: arithmetic,
  mul: arithmetic,
  div: arithmetic,
  mod: arithmetic,
  neg: ({ a0, rt, s }) => {
    const d = domainOf(rt);
    // INT and BIGINT wrap: -(-2^31) is -2^31 (Java).
    if (rt.kind === 'int') return nullSafe1(a0, (v) => `(-${v} | 0)`, s);
    if (rt.kind === 'bigint') return nullSafe1(a0, (v) => `rt.negI64(${convertCode(v, a0.type, rt)})`, s);
    return nullSafe1(a0, (v) => (d === 'num' ? `(-${v})` : `rt.sub64(0, ${convertCode(v, a0.type, rt)})`), s);
  },
  concat: ({ args, s }) => nullSafeN(args, (vs) => vs.map((v, i) => (args[i]!.type.kind === 'string' ? v : textValueCode(args[i]!.type, v))).join(' + '), s),
  lower: ({ a0, s }) => nullSafe1(a0, (v) => `${v}.toLowerCase()`, s),
  upper: ({ a0, s }) => nullSafe1(a0, (v) => `${v}.toUpperCase()`, s),
  trim: ({ a0, s }) => nullSafe1(a0, (v) => `${v}.trim()`, s),
  ltrim: ({ a0, s }) => nullSafe1(a0, (v) => `${v}.trimStart()`, s),
  rtrim: ({ a0, s }) => nullSafe1(a0, (v) => `${v}.trimEnd()`, s),
  char_length: ({ a0 }) => `rt.sql.charLength(${a0.code})`,
  substring: ({ args }) => `rt.sql.substring(${args.map((x) => (domainOf(x.type) === 'i64' ? `rt.numOrNull(${x.code})` : x.code)).join(', ')})`,
  coalesce: ({ args, rt, s }) => `rt.sql.coalesce(${args.map((x) => coerce(x, rt, s)).join(', ')})`,
  nullif: ({ a0, a1, rt, s }) => `rt.sql.nullif(${coerce(a0, rt, s)}, ${coerce(a1, unify(a0.type, a1.type), s)})`,
  floor_to: ({ e, a0 }) => `rt.sql.floorTo(${a0.code}, ${unit(e)})`,
  ceil_to: ({ e, a0 }) => `rt.sql.ceilTo(${a0.code}, ${unit(e)})`,
  extract: ({ e, a0 }) => `rt.sql.extract(${unit(e)}, ${a0.code})`,
  timestampadd: ({ e, a0, a1 }) => `rt.sql.timestampAdd(${unit(e)}, ${domainOf(a0.type) === 'i64' ? `rt.numOrNull(${a0.code})` : a0.code}, ${a1.code})`,
  to_timestamp_ltz: ({ e, a0, s }) => {
    const precision = e.args[1]?.kind === 'lit' ? Number(e.args[1].value) : 3;
    const factor = precision === 0 ? 1000 : 1;
    return nullSafe1(a0, (v) => `Number(${v}) * ${factor}`, s);
  },
  json_value: ({ a0, a1 }) => `rt.sql.jsonValue(${a0.code}, ${a1.code})`,
};

function compileCall(e: Extract<IrExpr, { kind: 'call' }>, s: ExprScope): string {
  const args = e.args.map((a) => compileExpr(a, s));
  return FUNCTIONS[e.fn]({ e, args, a0: args[0]!, a1: args[1]!, rt: e.type, s });
}

function arith(fn: 'add' | 'sub' | 'mul' | 'div' | 'mod', a: Compiled, b: Compiled, rt: SqlType, s: ExprScope): string {
  const d = domainOf(rt);
  if (rt.kind === 'timestamp' || rt.kind === 'date' || rt.kind === 'interval') {
    // Timestamps and intervals are both milliseconds: plain arithmetic.
    const op = fn === 'add' ? '+' : fn === 'sub' ? '-' : fn === 'mul' ? '*' : '/';
    return nullSafeN([num(a, s), num(b, s)], ([x, y]) => `${x} ${op} ${y}`, s);
  }
  if (d === 'num') {
    const l = { code: coerce(a, rt, s), type: a.type };
    const r = { code: coerce(b, rt, s), type: b.type };
    if (rt.kind === 'int') {
      // INT arithmetic is 32-bit two's complement, as Flink's generated Java: `| 0` and
      // Math.imul wrap (and truncate division toward zero; MIN / -1 wraps to MIN).
      if (fn === 'div') return nullSafeN([l, r], ([x, y]) => `(${y} === 0 ? null : (${x} / ${y}) | 0)`, s);
      if (fn === 'mod') return nullSafeN([l, r], ([x, y]) => `(${y} === 0 ? null : (${x} % ${y}) | 0)`, s);
      if (fn === 'mul') return nullSafeN([l, r], ([x, y]) => `Math.imul(${x}, ${y})`, s);
      const op = fn === 'add' ? '+' : '-';
      return nullSafeN([l, r], ([x, y]) => `((${x} ${op} ${y}) | 0)`, s);
    }
    if (fn === 'div') return nullSafeN([l, r], ([x, y]) => `${x} / ${y}`, s);
    if (fn === 'mod') return nullSafeN([l, r], ([x, y]) => `(${y} === 0 ? null : ${x} % ${y})`, s);
    const op = fn === 'add' ? '+' : fn === 'sub' ? '-' : '*';
    return nullSafeN([l, r], ([x, y]) => `${x} ${op} ${y}`, s);
  }
  if (d === 'i64') {
    const l = { code: coerce(a, rt, s), type: a.type };
    const r = { code: coerce(b, rt, s), type: b.type };
    // BIGINT wraps at 64 bits (int-wrap.ts); the number fast path stays allocation-free.
    const f = { add: 'rt.addI64', sub: 'rt.subI64', mul: 'rt.mulI64', div: 'rt.divI64', mod: 'rt.mod64' }[fn];
    return nullSafeN([l, r], ([x, y]) => `${f}(${x}, ${y})`, s);
  }
  if (d === 'dec') {
    const sr = scaleOf(rt);
    if (fn === 'add' || fn === 'sub' || fn === 'mod') {
      const l = { code: coerce(a, rt, s), type: a.type };
      const r = { code: coerce(b, rt, s), type: b.type };
      const f = fn === 'add' ? 'rt.add64' : fn === 'sub' ? 'rt.sub64' : 'rt.mod64';
      return nullSafeN([l, r], ([x, y]) => `${f}(${x}, ${y})`, s);
    }
    const ta = asDecimal(a.type);
    const tb = asDecimal(b.type);
    const l = { code: coerce(a, ta, s), type: a.type };
    const r = { code: coerce(b, tb, s), type: b.type };
    const f = fn === 'mul' ? 'rt.mulDecimal' : 'rt.divDecimal';
    return nullSafeN([l, r], ([x, y]) => `${f}(${x}, ${ta.kind === 'decimal' ? ta.scale : 0}, ${y}, ${tb.kind === 'decimal' ? tb.scale : 0}, ${sr})`, s);
  }
  return 'null';
}

function asDecimal(t: SqlType): SqlType {
  if (t.kind === 'decimal') return t;
  return { kind: 'decimal', precision: 38, scale: 0, nullable: t.nullable };
}

function num(x: Compiled, s: ExprScope): Compiled {
  return domainOf(x.type) === 'num' ? x : { code: coerce(x, T_DOUBLE, s), type: x.type };
}
