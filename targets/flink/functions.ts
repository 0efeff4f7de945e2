// The ONE scalar function table of the Flink SQL target (IrFn → SQL text) and the expression
// compiler. pipec's functions follow Flink SQL's, so most entries are Flink's own function; every
// compiled call is parenthesized so compiled expressions substitute into one another.
import type { IrExpr, IrFn, SqlType } from '../../src/plan/ir.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { interval, str } from './sql-text.ts';
import { flinkType } from './types.ts';

/** Resolves a column reference (`input` 0/1 for joins) to SQL text. */
export type ColumnResolver = (input: number, name: string) => string;

/** What the compiler could not express; the caller reports it at the operator. */
export interface Unsupported {
  what: string;
}

type Call = Extract<IrExpr, { kind: 'call' }>;
type Emit = (args: string[], e: Call) => string | Unsupported;

const infix = (op: string): Emit => (a) => `(${a[0]} ${op} ${a[1]})`;
const fn = (name: string): Emit => (a) => `${name}(${a.join(', ')})`;
const unit = (e: Call): string => {
  if (!e.unit) throw new Error(`IR call '${e.fn}' carries no unit`);
  return e.unit.toUpperCase();
};

export const FUNCTIONS: Readonly<Record<IrFn, Emit>> = {
  add: infix('+'),
  sub: (a, e) =>
    e.args[0]?.type.kind === 'timestamp' && e.args[1]?.type.kind === 'timestamp'
      ? { what: 'a difference of two timestamps in milliseconds (Flink SQL has TIMESTAMPDIFF only in whole units)' }
      : `(${a[0]} - ${a[1]})`,
  mul: infix('*'),
  // Integer division truncates on both (Java integer arithmetic); decimals keep Flink's derived scale.
  div: infix('/'),
  mod: fn('MOD'),
  neg: (a) => `(-${a[0]})`,
  eq: infix('='),
  ne: infix('<>'),
  lt: infix('<'),
  le: infix('<='),
  gt: infix('>'),
  ge: infix('>='),
  and: infix('AND'),
  or: infix('OR'),
  not: (a) => `(NOT ${a[0]})`,
  is_null: (a) => `(${a[0]} IS NULL)`,
  is_not_null: (a) => `(${a[0]} IS NOT NULL)`,
  in: (a) => `(${a[0]} IN (${a.slice(1).join(', ')}))`,
  not_in: (a) => `(${a[0]} NOT IN (${a.slice(1).join(', ')}))`,
  like: infix('LIKE'),
  not_like: infix('NOT LIKE'),
  concat: fn('CONCAT'),
  lower: fn('LOWER'),
  upper: fn('UPPER'),
  substring: (a) => (a.length > 2 ? `SUBSTRING(${a[0]} FROM ${a[1]} FOR ${a[2]})` : `SUBSTRING(${a[0]} FROM ${a[1]})`),
  trim: (a) => `TRIM(BOTH ' ' FROM ${a[0]})`,
  ltrim: fn('LTRIM'),
  rtrim: fn('RTRIM'),
  char_length: fn('CHAR_LENGTH'),
  coalesce: fn('COALESCE'),
  nullif: fn('NULLIF'),
  floor_to: (a, e) => `FLOOR(${a[0]} TO ${unit(e)})`,
  ceil_to: (a, e) => `CEIL(${a[0]} TO ${unit(e)})`,
  extract: (a, e) => `EXTRACT(${unit(e)} FROM ${a[0]})`,
  timestampadd: (a, e) => `TIMESTAMPADD(${unit(e)}, ${a[0]}, ${a[1]})`,
  to_timestamp_ltz: fn('TO_TIMESTAMP_LTZ'),
  json_value: fn('JSON_VALUE'),
};

/** Flink SQL text of an expression; throws `UnsupportedExpr` naming what has no Flink form. */
export function compileExpr(e: IrExpr, col: ColumnResolver): string {
  switch (e.kind) {
    case 'col':
      return col(e.input, e.name);
    case 'lit':
      return literal(e.value, e.type);
    case 'cast':
      return `CAST(${compileExpr(e.operand, col)} AS ${flinkType(e.type, false)})`;
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${compileExpr(w.when, col)} THEN ${compileExpr(w.then, col)}`).join(' ');
      return `(CASE ${whens}${e.else ? ` ELSE ${compileExpr(e.else, col)}` : ''} END)`;
    }
    case 'call': {
      const out = FUNCTIONS[e.fn](e.args.map((a) => compileExpr(a, col)), e);
      if (typeof out !== 'string') throw new UnsupportedExpr(out.what);
      return out;
    }
    default:
      return assertNever(e);
  }
}

export class UnsupportedExpr extends Error {}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DD HH:MM:SS.mmm` of epoch milliseconds, in UTC (pipec reads TIMESTAMP as UTC). */
export function timestampText(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

function literal(v: string | number | boolean | null, t: SqlType): string {
  if (v === null) return `CAST(NULL AS ${flinkType(t, false)})`;
  switch (t.kind) {
    case 'boolean':
      return v ? 'TRUE' : 'FALSE';
    case 'string':
      return str(String(v));
    case 'timestamp':
      return t.ltz ? `TO_TIMESTAMP_LTZ(${Number(v)}, 3)` : `TIMESTAMP '${timestampText(Number(v))}'`;
    case 'date':
      return `DATE '${timestampText(Number(v) * 86_400_000).slice(0, 10)}'`;
    case 'interval':
      return interval(Number(v));
    case 'bytes':
      return `X'${Buffer.from(String(v), 'base64').toString('hex')}'`;
    case 'int':
      return String(v);
    // A small integer literal is INT in Flink: the cast keeps the IR's type (SUM(BIGINT) stays BIGINT).
    case 'bigint':
    case 'float':
    case 'double':
      return `CAST(${String(v)} AS ${flinkType(t, false)})`;
    case 'decimal':
      return `CAST(${String(v)} AS ${flinkType(t, false)})`;
    default:
      return `CAST(${str(String(v))} AS ${flinkType(t, false)})`;
  }
}
