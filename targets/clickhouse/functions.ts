// The ONE scalar function table of the ClickHouse target (IrFn → SQL text) and the expression compiler.
// Every compiled call is parenthesized, so compiled expressions can be substituted into one another.
import type { IrExpr, IrFn, SqlType, TimeUnitName } from '../../src/plan/ir.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { str } from './sql-text.ts';
import { chType, TIME_ZONE } from './types.ts';

/** Resolves a column reference (`input` 0/1 for joins) to SQL text. */
export type ColumnResolver = (input: number, name: string) => string;

type Emit = (args: string[], e: Extract<IrExpr, { kind: 'call' }>) => string;

const infix = (op: string): Emit => (a) => `(${a[0]} ${op} ${a[1]})`;
const fn = (name: string): Emit => (a) => `${name}(${a.join(', ')})`;

/** Unit → ClickHouse function families (toStartOfX, toX, addXs). Week floors to Sunday like Calcite. */
const UNIT: Readonly<Record<TimeUnitName, { floor: string; extract: string; add: string }>> = {
  millisecond: { floor: 'toStartOfMillisecond', extract: 'toMillisecond', add: 'addMilliseconds' },
  second: { floor: 'toStartOfSecond', extract: 'toSecond', add: 'addSeconds' },
  minute: { floor: 'toStartOfMinute', extract: 'toMinute', add: 'addMinutes' },
  hour: { floor: 'toStartOfHour', extract: 'toHour', add: 'addHours' },
  day: { floor: 'toStartOfDay', extract: 'toDayOfMonth', add: 'addDays' },
  week: { floor: 'toStartOfWeek', extract: 'toISOWeek', add: 'addWeeks' },
  month: { floor: 'toStartOfMonth', extract: 'toMonth', add: 'addMonths' },
  quarter: { floor: 'toStartOfQuarter', extract: 'toQuarter', add: 'addQuarters' },
  year: { floor: 'toStartOfYear', extract: 'toYear', add: 'addYears' },
};

function unitOf(e: Extract<IrExpr, { kind: 'call' }>): (typeof UNIT)[TimeUnitName] {
  if (!e.unit) throw new Error(`IR call '${e.fn}' carries no unit`);
  return UNIT[e.unit];
}

const isInterval = (e: IrExpr | undefined): boolean => e?.type.kind === 'interval';
const isIntegral = (t: SqlType): boolean => t.kind === 'int' || t.kind === 'bigint';

/** Casts a time-valued result back to the IR's DateTime64 (toStartOfDay etc. return DateTime). */
const asType = (sql: string, t: SqlType): string => `CAST(${sql} AS ${chType(t)})`;

export const FUNCTIONS: Readonly<Record<IrFn, Emit>> = {
  // Intervals are milliseconds (IR convention): timestamp ± interval shifts by milliseconds.
  add: (a, e) =>
    isInterval(e.args[1]) && !isInterval(e.args[0]) ? `addMilliseconds(${a[0]}, ${a[1]})` : arith(`(${a[0]} + ${a[1]})`, e.type),
  sub: (a, e) => {
    if (e.args[0]?.type.kind === 'timestamp' && e.args[1]?.type.kind === 'timestamp')
      return `(toUnixTimestamp64Milli(${a[0]}) - toUnixTimestamp64Milli(${a[1]}))`;
    return isInterval(e.args[1]) && !isInterval(e.args[0]) ? `subtractMilliseconds(${a[0]}, ${a[1]})` : arith(`(${a[0]} - ${a[1]})`, e.type);
  },
  mul: (a, e) => arith(`(${a[0]} * ${a[1]})`, e.type),
  // SQL integer division truncates toward zero, as intDiv does; decimals keep the IR's scale.
  div: (a, e) =>
    isIntegral(e.type)
      ? // MIN / -1 wraps to MIN as in Java (intDiv refuses it; negation wraps).
        `if(${a[1]} = -1, -${a[0]}, intDiv(${a[0]}, ${a[1]}))`
      : e.type.kind === 'decimal'
        ? // Truncating at scale + 1 then rounding (half away from zero for Decimal) is exact half-up.
          asType(`round(divideDecimal(${a[0]}, ${a[1]}, ${e.type.scale + 1}), ${e.type.scale})`, e.type)
        : `(${a[0]} / ${a[1]})`,
  mod: (a, e) => arith(`(${a[0]} % ${a[1]})`, e.type),
  neg: (a) => `(-${a[0]})`,
  eq: infix('='),
  ne: infix('!='),
  lt: infix('<'),
  le: infix('<='),
  gt: infix('>'),
  ge: infix('>='),
  and: (a) => `(${a.join(' AND ')})`,
  or: (a) => `(${a.join(' OR ')})`,
  not: (a) => `(NOT ${a[0]})`,
  is_null: (a) => `(${a[0]} IS NULL)`,
  is_not_null: (a) => `(${a[0]} IS NOT NULL)`,
  in: (a) => `(${a[0]} IN (${a.slice(1).join(', ')}))`,
  not_in: (a) => `(${a[0]} NOT IN (${a.slice(1).join(', ')}))`,
  like: infix('LIKE'),
  not_like: infix('NOT LIKE'),
  // concat is NULL when any argument is NULL, like SQL's ||.
  concat: fn('concat'),
  lower: fn('lowerUTF8'),
  upper: fn('upperUTF8'),
  substring: fn('substringUTF8'),
  trim: fn('trimBoth'),
  ltrim: fn('trimLeft'),
  rtrim: fn('trimRight'),
  char_length: (a) => `toInt32(lengthUTF8(${a[0]}))`,
  coalesce: fn('coalesce'),
  nullif: fn('nullIf'),
  floor_to: (a, e) => asType(`${unitOf(e).floor}(${a[0]}${e.unit === 'week' ? ', 0' : ''})`, e.type),
  ceil_to: (a, e) => {
    const u = unitOf(e);
    const floor = `${u.floor}(${a[0]}${e.unit === 'week' ? ', 0' : ''})`;
    return asType(`if(${floor} = ${a[0]}, ${floor}, ${u.add}(${floor}, 1))`, e.type);
  },
  extract: (a, e) => `toInt64(${unitOf(e).extract}(${a[0]}))`,
  // TIMESTAMPADD(unit, amount, ts): args are [amount, ts].
  timestampadd: (a, e) => asType(`${unitOf(e).add}(${a[1]}, ${a[0]})`, e.type),
  to_timestamp_ltz: (a, e) => {
    const precision = e.args[1]?.kind === 'lit' ? Number(e.args[1].value) : 3;
    return precision === 0
      ? asType(`toDateTime64(toInt64(${a[0]}), 0, ${str(TIME_ZONE)})`, e.type)
      : asType(`fromUnixTimestamp64Milli(toInt64(${a[0]}), ${str(TIME_ZONE)})`, e.type);
  },
  // JSON_VALUE returns '' for a missing path in ClickHouse; SQL returns NULL.
  json_value: (a) => `nullIf(JSON_VALUE(${a[0]}, ${a[1]}), '')`,
};

/**
 * Decimal arithmetic is cast to the IR's precision and scale (ClickHouse widens scales on *).
 * INT arithmetic is cast back to Int32: ClickHouse computes Int32 + Int32 in Int64, Flink in
 * Java int, and CAST keeps the low 32 bits, which is Java's wrap. Int64 already wraps.
 */
function arith(sql: string, t: SqlType): string {
  return t.kind === 'decimal' || t.kind === 'int' ? asType(sql, t) : sql;
}

/** Compiles an IR expression to ClickHouse SQL. */
export function compileExpr(e: IrExpr, col: ColumnResolver): string {
  switch (e.kind) {
    case 'col':
      return col(e.input, e.name);
    case 'lit':
      return literal(e.value, e.type);
    case 'call':
      return FUNCTIONS[e.fn](
        e.args.map((x) => compileExpr(x, col)),
        e,
      );
    case 'cast':
      return `CAST(${compileExpr(e.operand, col)} AS ${chType(e.type)})`;
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${compileExpr(w.when, col)} THEN ${compileExpr(w.then, col)}`).join(' ');
      const els = e.else ? ` ELSE ${compileExpr(e.else, col)}` : '';
      return `(CASE ${whens}${els} END)`;
    }
    default:
      return assertNever(e);
  }
}

/** A literal of the IR (decimals as exact strings, timestamps as epoch ms, dates as epoch days). */
export function literal(value: string | number | boolean | null, t: SqlType): string {
  if (value === null) return t.kind === 'null' ? 'NULL' : `CAST(NULL AS ${chType({ ...t, nullable: true } as SqlType)})`;
  switch (t.kind) {
    case 'boolean':
      return value === true || value === 'true' ? 'true' : 'false';
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
      return `CAST(${str(String(value))} AS ${chType({ ...t, nullable: false } as SqlType)})`;
    case 'decimal':
      return `CAST(${str(String(value))} AS Decimal(${t.precision}, ${t.scale}))`;
    case 'string':
      return str(String(value));
    case 'bytes':
      return `base64Decode(${str(String(value))})`;
    case 'date':
      return `addDays(toDate32('1970-01-01'), ${Number(value)})`;
    case 'timestamp':
      return `fromUnixTimestamp64Milli(CAST(${str(String(value))} AS Int64), ${str(TIME_ZONE)})`;
    case 'interval':
      return `CAST(${str(String(value))} AS Int64)`;
    case 'array':
    case 'map':
    case 'row':
    case 'null':
      return `CAST(${str(String(value))} AS ${chType(t)})`;
    default:
      return assertNever(t);
  }
}
