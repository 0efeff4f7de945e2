// Canonical `.pipe.sql` text of a PipeFile (`pipec fmt`, `fmt --to sql`): upper-case keywords,
// one clause per line, 2-space indent, one option per line, `${VAR}` text kept as written.
// Idempotent: formatting the parse of formatted text gives the same text.
import type {
  CompactionAction,
  CreateSourceStmt,
  FromItem,
  OptionEntry,
  OptionValue,
  PipeFile,
  Query,
  SelectItem,
  SelectQuery,
  Statement,
  WindowTvf,
} from '../ast.ts';
import { assertNever } from '../../util/assert-never.ts';
import { additiveExpr, expr, ident, intervalLit, stringLit, typeSql } from './to-sql-expr.ts';

const INDENT = '  ';
/** Select lists longer than this go one item per line. */
const MAX_LINE = 100;

export function formatSql(file: PipeFile): string {
  const out: string[] = [];
  let prevEnd = -1;
  for (const s of file.statements) {
    const allows = file.suppressions
      .filter((x) => x.span.file === s.span.file && x.span.start.offset > prevEnd && x.span.start.offset < s.span.start.offset)
      .map((x) => x.code);
    const head = allows.length ? `-- pipec:allow ${allows.join(', ')}\n` : '';
    out.push(`${head}${statement(s)};\n`);
    prevEnd = s.span.end.offset;
  }
  return out.join('\n');
}

function statement(s: Statement): string {
  switch (s.kind) {
    case 'pipeline':
      return `PIPELINE ${ident(s.name)}${withClause(s.options)}`;
    case 'source':
      return source(s);
    case 'view': {
      const lines = [`CREATE VIEW ${ident(s.name)}${withClause(s.options)} AS`, query(s.query)];
      if (s.emit) lines.push(s.emit.mode === 'changes' ? 'EMIT CHANGES' : 'EMIT ON WINDOW CLOSE');
      if (s.allowedLateness) lines.push(`ALLOWED LATENESS ${intervalLit(s.allowedLateness)}`);
      if (s.onLate) lines.push(s.onLate.kind === 'drop' ? 'ON LATE DROP' : `ON LATE TO ${ident(s.onLate.target)}`);
      return lines.join('\n');
    }
    case 'sink': {
      const name = `CREATE SINK ${ident(s.name)}`;
      if (s.from) return `${name} FROM ${s.from.parts.map(ident).join('.')}${withClause(s.options)}`;
      if (s.query) return `${name} AS\n${query(s.query)}${s.options.length ? `\n${withClause(s.options).trimStart()}` : ''}`;
      return `${name}${withClause(s.options)}`;
    }
    case 'catalog':
      return `CREATE CATALOG ${ident(s.name)}${withClause(s.options)}`;
    case 'compaction': {
      const actions = s.actions.map((a) => INDENT + action(a)).join(',\n');
      const schedule = s.schedule ? ` SCHEDULE EVERY ${intervalLit(s.schedule)}` : '';
      return `CREATE COMPACTION POLICY ${ident(s.name)} ON ${ident(s.target)} (\n${actions}\n)${schedule}`;
    }
    default:
      return assertNever(s);
  }
}

function source(s: CreateSourceStmt): string {
  const head = `CREATE SOURCE ${ident(s.name)}`;
  const cols = s.columns ?? [];
  const width = Math.max(0, ...cols.map((c) => ident(c.name).length));
  const elems = cols.map((c) => {
    const meta = c.metadataFrom ? ` METADATA FROM ${stringLit(c.metadataFrom.key)}` : '';
    return `${ident(c.name).padEnd(width)} ${typeSql(c.type)}${meta}`;
  });
  if (s.watermark) elems.push(`WATERMARK FOR ${ident(s.watermark.column)} AS ${expr(s.watermark.expr)}`);
  if (s.primaryKey) elems.push(`PRIMARY KEY (${s.primaryKey.columns.map(ident).join(', ')}) NOT ENFORCED`);
  const list = elems.length ? ` (\n${elems.map((e) => INDENT + e).join(',\n')}\n)` : '';
  return `${head}${list}${withClause(s.options)}`;
}

function withClause(options: OptionEntry[]): string {
  if (options.length === 0) return '';
  const keys = options.map((o) => o.key.split('.').map(optionKeyPart).join('.'));
  const width = Math.max(...keys.map((k) => k.length));
  const lines = options.map((o, i) => `${INDENT}${keys[i]!.padEnd(width)} = ${optionValue(o.value)}`);
  return ` WITH (\n${lines.join(',\n')}\n)`;
}

/** Option keys may be any word, reserved ones included (`table`, `format`). */
function optionKeyPart(p: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(p) ? p : `"${p.replace(/"/g, '""')}"`;
}

function optionValue(v: OptionValue): string {
  switch (v.kind) {
    case 'string':
      return stringLit(v.raw);
    case 'number':
      return v.raw;
    case 'boolean':
      return v.text === 'true' ? 'TRUE' : 'FALSE';
    default:
      return assertNever(v.kind);
  }
}

function action(a: CompactionAction): string {
  switch (a.kind) {
    case 'rewrite_data_files': {
      let s = 'REWRITE DATA FILES';
      if (a.fileSizeBelow) s += ` WHERE file_size < ${stringLit(a.fileSizeBelow.text)}`;
      if (a.target) s += ` TARGET ${stringLit(a.target.text)}`;
      if (a.minInputFiles !== null) s += ` MIN INPUT FILES ${a.minInputFiles}`;
      return s;
    }
    case 'rewrite_delete_files':
      return `REWRITE DELETE FILES WHERE delete_ratio > ${String(a.deleteRatioAbove)}`;
    case 'expire_snapshots':
      return `EXPIRE SNAPSHOTS OLDER THAN ${intervalLit(a.olderThan)}${a.retainLast !== null ? ` RETAIN LAST ${a.retainLast}` : ''}`;
    case 'remove_orphan_files':
      return `REMOVE ORPHAN FILES OLDER THAN ${intervalLit(a.olderThan)}`;
    default:
      return assertNever(a);
  }
}

// ---------------------------------------------------------------- queries

export function query(q: Query): string {
  switch (q.kind) {
    case 'select':
      return select(q);
    case 'union_all':
      return q.inputs.map(select).join('\nUNION ALL\n');
    default:
      return assertNever(q);
  }
}

function select(q: SelectQuery): string {
  const items = q.items.map(selectItem);
  const oneLine = `SELECT ${items.join(', ')}`;
  const lines = [oneLine.length <= MAX_LINE ? oneLine : `SELECT\n${items.map((i) => INDENT + i).join(',\n')}`];
  lines.push(...fromLines(q.from));
  if (q.where) lines.push(`WHERE ${expr(q.where)}`);
  if (q.groupBy.length) lines.push(`GROUP BY ${q.groupBy.map(expr).join(', ')}`);
  if (q.having) lines.push(`HAVING ${expr(q.having)}`);
  return lines.join('\n');
}

function selectItem(i: SelectItem): string {
  switch (i.kind) {
    case 'star':
      return i.qualifier ? `${ident(i.qualifier)}.*` : '*';
    case 'expr':
      return i.alias ? `${expr(i.expr)} AS ${ident(i.alias)}` : expr(i.expr);
    default:
      return assertNever(i);
  }
}

/** `FROM a` then one `JOIN b ON ...` line per join (joins nest to the left only). */
function fromLines(f: FromItem): string[] {
  if (f.kind !== 'join') return [`FROM ${fromPrimary(f)}`];
  const lines = fromLines(f.left);
  const kw = f.joinType === 'left' ? 'LEFT JOIN' : 'JOIN';
  lines.push(`${kw} ${fromPrimary(f.right)} ON ${expr(f.on)}`);
  return lines;
}

function alias(a: { name: string } | null): string {
  return a ? ` AS ${ident(a.name)}` : '';
}

function fromPrimary(f: FromItem): string {
  switch (f.kind) {
    case 'table': {
      const asOf = f.asOf ? ` FOR SYSTEM_TIME AS OF ${additiveExpr(f.asOf)}` : '';
      return `${f.name.parts.map(ident).join('.')}${asOf}${alias(f.alias)}`;
    }
    case 'window':
      return windowTvf(f) + alias(f.alias);
    case 'subquery': {
      const inner = query(f.query)
        .split('\n')
        .map((l) => INDENT + l)
        .join('\n');
      return `(\n${inner}\n)${alias(f.alias)}`;
    }
    case 'join':
      // The grammar has no parenthesized joins; a join on the right comes only from a
      // hand-built tree. Print it flat, which keeps its meaning for inner joins.
      return `${fromPrimary(f.left)} ${f.joinType === 'left' ? 'LEFT JOIN' : 'JOIN'} ${fromPrimary(f.right)} ON ${expr(f.on)}`;
    default:
      return assertNever(f);
  }
}

function windowTvf(w: WindowTvf): string {
  const rel = w.input.name.parts.map(ident).join('.');
  const partition = w.partitionBy.length ? ` PARTITION BY ${w.partitionBy.map(ident).join(', ')}` : '';
  const time = w.longForm ? `DESCRIPTOR(${ident(w.timeColumn)})` : ident(w.timeColumn);
  const args = [time, ...w.args.map(expr)].join(', ');
  const call = `${w.fn.toUpperCase()}(${w.longForm ? 'TABLE ' : ''}${rel}${partition}, ${args})`;
  return w.longForm ? `TABLE(${call})` : call;
}
