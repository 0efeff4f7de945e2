// Canonical `.pipe.sql` text of a PipeFile (`pipec fmt`, `fmt --to sql`): upper-case keywords,
// one clause per line, 2-space indent, one option per line, `${VAR}` text kept as written,
// comments kept (see to-sql-comments.ts). Idempotent: format(parse(format(x))) == format(x).
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
import { CommentPlacer, commentColumn, withComments } from './to-sql-comments.ts';
import type { Span } from '../../diagnostics/span.ts';

const INDENT = '  ';
/** Select lists longer than this go one item per line. */
const MAX_LINE = 100;

export function formatSql(file: PipeFile): string {
  const placer = new CommentPlacer(file.comments ?? []);
  const out: string[] = [];
  let prevEnd = -1;
  file.statements.forEach((s, i) => {
    const body = statement(s, placer);
    const above = placer.upTo(s.span.end.offset).map((c) => `${c.text}\n`);
    // Without the source's comments (a YAML file), suppressions are all that must survive.
    if (file.comments === undefined) {
      const allows = file.suppressions
        .filter((x) => x.span.file === s.span.file && x.span.start.offset > prevEnd && x.span.start.offset < s.span.start.offset)
        .map((x) => x.code);
      if (allows.length) above.push(`-- pipec:allow ${allows.join(', ')}\n`);
    }
    const trailing = placer.trailingStatement(s.span, file.statements[i + 1]?.span.start.offset ?? Infinity);
    out.push(`${above.join('')}${body};${trailing ? `  ${trailing.text}` : ''}\n`);
    prevEnd = s.span.end.offset;
  });
  const rest = placer.rest();
  if (rest.length) out.push(`${rest.map((c) => c.text).join('\n')}\n`);
  return out.join('\n');
}

function statement(s: Statement, cp: CommentPlacer): string {
  const end = s.span.end.offset;
  switch (s.kind) {
    case 'pipeline':
      return `PIPELINE ${ident(s.name)}${withClause(s.options, cp, end)}`;
    case 'source':
      return source(s, cp);
    case 'view': {
      const lines = [`CREATE VIEW ${ident(s.name)}${withClause(s.options, cp, end)} AS`, query(s.query)];
      if (s.emit) lines.push(s.emit.mode === 'changes' ? 'EMIT CHANGES' : 'EMIT ON WINDOW CLOSE');
      if (s.allowedLateness) lines.push(`ALLOWED LATENESS ${intervalLit(s.allowedLateness)}`);
      if (s.onLate) lines.push(s.onLate.kind === 'drop' ? 'ON LATE DROP' : `ON LATE TO ${ident(s.onLate.target)}`);
      return lines.join('\n');
    }
    case 'sink': {
      const name = `CREATE SINK ${ident(s.name)}`;
      if (s.from) return `${name} FROM ${s.from.parts.map(ident).join('.')}${withClause(s.options, cp, end)}`;
      if (s.query) return `${name} AS\n${query(s.query)}${s.options.length ? `\n${withClause(s.options, cp, end).trimStart()}` : ''}`;
      return `${name}${withClause(s.options, cp, end)}`;
    }
    case 'catalog':
      return `CREATE CATALOG ${ident(s.name)}${withClause(s.options, cp, end)}`;
    case 'compaction': {
      const schedule = s.schedule ? ` SCHEDULE EVERY ${intervalLit(s.schedule)}` : '';
      const list = commentedList(s.actions.map((a) => ({ text: action(a), span: a.span })), cp, end);
      return `CREATE COMPACTION POLICY ${ident(s.name)} ON ${ident(s.target)} (\n${list}\n)${schedule}`;
    }
    default:
      return assertNever(s);
  }
}

/** One item per line, indented, comma-separated, each with the comments that belong to it. */
function commentedList(items: { text: string; span: Span }[], cp: CommentPlacer, limit: number): string {
  const comments = cp.items(items.map((i) => i.span), limit);
  const lines = items.map((item, i) => ({ text: item.text + (i < items.length - 1 ? ',' : ''), c: comments[i]! }));
  const col = commentColumn(lines.map((l) => ({ text: INDENT + l.text, c: l.c })));
  return lines.map((l) => withComments(INDENT, l.text, l.c, col)).join('\n');
}

function source(s: CreateSourceStmt, cp: CommentPlacer): string {
  const head = `CREATE SOURCE ${ident(s.name)}`;
  const cols = s.columns ?? [];
  const width = Math.max(0, ...cols.map((c) => ident(c.name).length));
  const items = cols.map((c) => {
    const meta = c.metadataFrom ? ` METADATA FROM ${stringLit(c.metadataFrom.key)}` : '';
    return { text: `${ident(c.name).padEnd(width)} ${typeSql(c.type)}${meta}`, span: c.span };
  });
  if (s.watermark) items.push({ text: `WATERMARK FOR ${ident(s.watermark.column)} AS ${expr(s.watermark.expr)}`, span: s.watermark.span });
  if (s.primaryKey) items.push({ text: `PRIMARY KEY (${s.primaryKey.columns.map(ident).join(', ')}) NOT ENFORCED`, span: s.primaryKey.span });
  const list = items.length ? ` (\n${commentedList(items, cp, s.span.end.offset)}\n)` : '';
  return `${head}${list}${withClause(s.options, cp, s.span.end.offset)}`;
}

function withClause(options: OptionEntry[], cp: CommentPlacer, limit: number): string {
  if (options.length === 0) return '';
  const keys = options.map((o) => o.key.split('.').map(optionKeyPart).join('.'));
  const width = Math.max(...keys.map((k) => k.length));
  const items = options.map((o, i) => ({ text: `${keys[i]!.padEnd(width)} = ${optionValue(o.value)}`, span: o.span }));
  return ` WITH (\n${commentedList(items, cp, limit)}\n)`;
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
      // As written (`true` stays `true`): the plan fingerprint keeps option text as written, so a
      // reformatted spec still resumes from its checkpoints.
      return /^(true|false)$/i.test(v.raw) ? v.raw : v.text === 'true' ? 'TRUE' : 'FALSE';
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
      // The user's notation stays: `30 PERCENT` is not rewritten as 0.3.
      return `REWRITE DELETE FILES WHERE delete_ratio > ${a.percentText ? `${a.percentText} PERCENT` : String(a.deleteRatioAbove)}`;
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
  // Several columns in parentheses, as Flink writes them: unambiguous, and valid Flink SQL.
  const cols = w.partitionBy.map(ident).join(', ');
  const partition = w.partitionBy.length === 0 ? '' : w.partitionBy.length === 1 ? ` PARTITION BY ${cols}` : ` PARTITION BY (${cols})`;
  const time = w.longForm ? `DESCRIPTOR(${ident(w.timeColumn)})` : ident(w.timeColumn);
  const args = [time, ...w.args.map(expr)].join(', ');
  const call = `${w.fn.toUpperCase()}(${w.longForm ? 'TABLE ' : ''}${rel}${partition}, ${args})`;
  return w.longForm ? `TABLE(${call})` : call;
}
