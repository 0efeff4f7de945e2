// Prints expressions, identifiers, literals and types in canonical `.pipe.sql` form, with the
// fewest parentheses that keep the tree: parse(print(e)) has the same shape as e.
import type { BinaryOp, Expr, Ident, IntervalLit, TimeUnit } from '../ast.ts';
import { formatSqlType, type SqlType } from '../../types/sql-type.ts';
import { assertNever } from '../../util/assert-never.ts';
import { RESERVED_WORDS } from '../../../grammar/lexer.ts';

/** Plain lower-case words print bare; anything else (case, spaces, keywords) is "quoted". */
export function ident(i: Ident | string): string {
  const name = typeof i === 'string' ? i : i.name;
  if (/^[a-z_][a-z0-9_$]*$/.test(name) && !RESERVED_WORDS.has(name)) return name;
  return `"${name.replace(/"/g, '""')}"`;
}

export function stringLit(raw: string): string {
  return `'${raw.replace(/'/g, "''")}'`;
}

export function intervalLit(i: IntervalLit): string {
  return i.unit ? `INTERVAL ${stringLit(i.text)} ${i.unit.toUpperCase()}` : `INTERVAL ${stringLit(i.text)}`;
}

export function typeSql(t: SqlType): string {
  return formatSqlType(t);
}

const unit = (u: TimeUnit): string => u.toUpperCase();

// Precedence levels, matching the grammar's rule nesting (grammar/parser.ts).
const OR = 1;
const AND = 2;
const NOT = 3;
const PRED = 4;
const ADD = 5;
const MUL = 6;
const UNARY = 7;
const ATOM = 8;

function binaryLevel(op: BinaryOp): number {
  switch (op) {
    case 'or':
      return OR;
    case 'and':
      return AND;
    case '=':
    case '<>':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return PRED;
    case '+':
    case '-':
    case '||':
      return ADD;
    case '*':
    case '/':
    case '%':
      return MUL;
    default:
      return assertNever(op);
  }
}

function level(e: Expr): number {
  switch (e.kind) {
    case 'binary':
      return binaryLevel(e.op);
    case 'unary':
      return e.op === 'not' ? NOT : UNARY;
    case 'is_null':
    case 'in':
    case 'between':
    case 'like':
      return PRED;
    default:
      return ATOM;
  }
}

/** Prints `e` where the grammar needs at least precedence `min`. */
function at(e: Expr, min: number): string {
  const s = expr(e);
  return level(e) < min ? `(${s})` : s;
}

function callName(i: Ident): string {
  const printed = ident(i);
  return printed.startsWith('"') ? printed : printed.toUpperCase();
}

export function expr(e: Expr): string {
  switch (e.kind) {
    case 'column':
      return e.qualifier ? `${ident(e.qualifier)}.${ident(e.name)}` : ident(e.name);
    case 'number':
      return e.text;
    case 'string':
      return stringLit(e.raw);
    case 'boolean':
      return e.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
    case 'interval':
      return intervalLit(e);
    case 'typed_literal':
      return `${e.type.toUpperCase()} ${stringLit(e.value)}`;
    case 'binary': {
      const p = level(e);
      const op = e.op === 'and' || e.op === 'or' ? e.op.toUpperCase() : e.op;
      // Comparisons do not chain in the grammar: both sides sit one level up.
      const leftMin = p === PRED ? ADD : p;
      return `${at(e.left, leftMin)} ${op} ${at(e.right, p + 1)}`;
    }
    case 'unary': {
      if (e.op === 'not') return `NOT ${at(e.operand, NOT)}`;
      const inner = at(e.operand, UNARY);
      // `--` would start a comment.
      return inner.startsWith('-') ? `-(${inner})` : `-${inner}`;
    }
    case 'is_null':
      return `${at(e.operand, ADD)} IS ${e.negated ? 'NOT ' : ''}NULL`;
    case 'in':
      return `${at(e.operand, ADD)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(expr).join(', ')})`;
    case 'between':
      return `${at(e.operand, ADD)} ${e.negated ? 'NOT ' : ''}BETWEEN ${at(e.low, ADD)} AND ${at(e.high, ADD)}`;
    case 'like':
      return `${at(e.operand, ADD)} ${e.negated ? 'NOT ' : ''}LIKE ${at(e.pattern, ADD)}`;
    case 'case': {
      const parts = ['CASE'];
      if (e.operand) parts.push(expr(e.operand));
      for (const w of e.whens) parts.push(`WHEN ${expr(w.when)} THEN ${expr(w.then)}`);
      if (e.else) parts.push(`ELSE ${expr(e.else)}`);
      parts.push('END');
      return parts.join(' ');
    }
    case 'cast':
      return `CAST(${expr(e.operand)} AS ${typeSql(e.type)})`;
    case 'call': {
      const args = e.star ? '*' : `${e.distinct ? 'DISTINCT ' : ''}${e.args.map(expr).join(', ')}`;
      return `${callName(e.name)}(${args})`;
    }
    case 'extract':
      return `EXTRACT(${unit(e.unit)} FROM ${expr(e.operand)})`;
    case 'floor_to':
      return `${e.ceil ? 'CEIL' : 'FLOOR'}(${expr(e.operand)} TO ${unit(e.unit)})`;
    case 'timestampadd':
      return `TIMESTAMPADD(${unit(e.unit)}, ${expr(e.amount)}, ${expr(e.operand)})`;
    case 'trim':
      if (e.side === 'both' && !e.chars) return `TRIM(${expr(e.operand)})`;
      return `TRIM(${e.side.toUpperCase()} ${e.chars ? `${expr(e.chars)} ` : ''}FROM ${expr(e.operand)})`;
    default:
      return assertNever(e);
  }
}

/** For `FOR SYSTEM_TIME AS OF e`, where the grammar takes an additive expression. */
export function additiveExpr(e: Expr): string {
  return at(e, ADD);
}
