// IR expressions, windows, aggregates and state bounds as short SQL-like text, for the plan
// printers. Nested infix operations are always parenthesized so the text is unambiguous.
import { formatSqlType, quoteIdentIfNeeded } from '../../types/sql-type.ts';
import { assertNever } from '../../util/assert-never.ts';
import type { IrAggregate, IrExpr, IrFn, IrWindow, SqlType, StateBound, WindowAggOp } from '../ir.ts';
import { formatDuration } from './format.ts';

const INFIX: Partial<Record<IrFn, string>> = {
  add: '+', sub: '-', mul: '*', div: '/', mod: '%',
  eq: '=', ne: '<>', lt: '<', le: '<=', gt: '>', ge: '>=',
  and: 'AND', or: 'OR', like: 'LIKE', not_like: 'NOT LIKE', concat: '||',
};

function pad2(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

function timestampText(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${pad2(d.getUTCMilliseconds(), 3)}`;
}

function litText(value: string | number | boolean | null, type: SqlType): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  switch (type.kind) {
    case 'string':
      return `'${String(value).replace(/'/g, "''")}'`;
    case 'timestamp':
      return `TIMESTAMP '${timestampText(Number(value))}'`;
    case 'date':
      return `DATE '${timestampText(Number(value) * 86_400_000).slice(0, 10)}'`;
    case 'interval':
      return `INTERVAL '${formatDuration(Number(value))}'`;
    case 'bytes':
      return `X'${Buffer.from(String(value), 'base64').toString('hex')}'`;
    default:
      return String(value);
  }
}

/** Join expressions name their side: `left.k = right.k`. */
export function exprText(e: IrExpr, join = false): string {
  const sub = (x: IrExpr) => {
    const t = exprText(x, join);
    return x.kind === 'call' && (INFIX[x.fn] !== undefined || x.fn === 'in' || x.fn === 'not_in') ? `(${t})` : t;
  };
  switch (e.kind) {
    case 'col':
      return join ? `${e.input === 0 ? 'left' : 'right'}.${quoteIdentIfNeeded(e.name)}` : quoteIdentIfNeeded(e.name);
    case 'lit':
      return litText(e.value, e.type);
    case 'cast':
      return `CAST(${exprText(e.operand, join)} AS ${formatSqlType(e.type, false)})`;
    case 'case': {
      const whens = e.whens.map((w) => ` WHEN ${exprText(w.when, join)} THEN ${exprText(w.then, join)}`).join('');
      return `CASE${whens}${e.else ? ` ELSE ${exprText(e.else, join)}` : ''} END`;
    }
    case 'call': {
      const infix = INFIX[e.fn];
      if (infix) return e.args.map(sub).join(` ${infix} `);
      const [a, ...rest] = e.args;
      const unit = (e.unit ?? '').toUpperCase();
      switch (e.fn) {
        case 'neg':
          return `-${sub(a!)}`;
        case 'not':
          return `NOT ${sub(a!)}`;
        case 'is_null':
          return `${sub(a!)} IS NULL`;
        case 'is_not_null':
          return `${sub(a!)} IS NOT NULL`;
        case 'in':
        case 'not_in':
          return `${sub(a!)} ${e.fn === 'in' ? 'IN' : 'NOT IN'} (${rest.map((x) => exprText(x, join)).join(', ')})`;
        case 'floor_to':
        case 'ceil_to':
          return `${e.fn === 'floor_to' ? 'FLOOR' : 'CEIL'}(${exprText(a!, join)} TO ${unit})`;
        case 'extract':
          return `EXTRACT(${unit} FROM ${exprText(a!, join)})`;
        case 'timestampadd':
          return `TIMESTAMPADD(${unit}, ${e.args.map((x) => exprText(x, join)).join(', ')})`;
        default:
          return `${e.fn.toUpperCase()}(${e.args.map((x) => exprText(x, join)).join(', ')})`;
      }
    }
    default:
      return assertNever(e);
  }
}

export function aggregateText(a: IrAggregate): string {
  const arg = a.arg ? exprText(a.arg) : '';
  const call =
    a.fn === 'count_star' ? 'COUNT(*)' : a.fn === 'count_distinct' ? `COUNT(DISTINCT ${arg})` : `${a.fn.toUpperCase()}(${arg})`;
  // The result type is shown: it decides overflow (SUM(INT) is INT and wraps, as Flink).
  return `${call} AS ${quoteIdentIfNeeded(a.name)} ${formatSqlType(a.type, false)}`;
}

export function windowText(w: IrWindow, time: string): string {
  switch (w.kind) {
    case 'tumble':
      return `TUMBLE(${time}, ${formatDuration(w.sizeMs)}${w.offsetMs ? `, offset ${formatDuration(w.offsetMs)}` : ''})`;
    case 'hop':
      return `HOP(${time}, slide ${formatDuration(w.slideMs)}, size ${formatDuration(w.sizeMs)})`;
    case 'cumulate':
      return `CUMULATE(${time}, step ${formatDuration(w.stepMs)}, size ${formatDuration(w.sizeMs)})`;
    case 'session':
      return `SESSION(${time}, gap ${formatDuration(w.gapMs)}${w.partitionBy.length ? `, PARTITION BY ${w.partitionBy.join(', ')}` : ''})`;
    default:
      return assertNever(w);
  }
}

/** The state bound in words; a window aggregate's bound is split into window and lateness. */
export function stateBoundText(b: StateBound, op?: WindowAggOp): string {
  switch (b.kind) {
    case 'stateless':
      return 'stateless';
    case 'window': {
      if (!op) return `bounded by window ${formatDuration(b.retainMs)}`;
      const w = op.window;
      const extent = w.kind === 'session' ? `session gap ${formatDuration(w.gapMs)}` : `window ${formatDuration(w.sizeMs)}`;
      return `bounded by ${extent}${op.allowedLatenessMs ? ` + lateness ${formatDuration(op.allowedLatenessMs)}` : ''}`;
    }
    case 'interval':
      return `bounded by join interval ${formatDuration(b.retainMs)}`;
    case 'ttl':
      return `bounded by TTL ${formatDuration(b.ttlMs)}`;
    case 'unbounded':
      return `unbounded: ${b.reason}`;
    default:
      return assertNever(b);
  }
}
