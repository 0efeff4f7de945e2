// CST statement rules → ast statements: PIPELINE, CREATE SOURCE / VIEW / SINK / CATALOG /
// COMPACTION POLICY, and the `WITH (key = value)` option lists they share.
import type { CstNode, IToken } from 'chevrotain';
import type {
  ColumnDef,
  CompactionAction,
  CreateSourceStmt,
  Expr,
  Ident,
  IntervalLit,
  OnLate,
  OptionEntry,
  OptionValue,
  QualifiedName,
  Query,
  SizeLit,
  Statement,
  WatermarkDef,
} from '../ast.ts';
import { substituteEnv } from '../env-subst.ts';
import { buildType } from './build-type.ts';
import { type Children, identAt, identsAt, need, node, nodes, optIdentAt, tok, toks, unquoteString } from './cst.ts';
import type { ExprBuilder } from './build-expr.ts';

const v = <T>(b: ExprBuilder, n: CstNode | undefined): T => b.visit(need(n)) as T;
const opts = (b: ExprBuilder, c: Children, key = 'withOptions'): OptionEntry[] => {
  const w = node(c, key);
  return w ? (b.visit(w) as OptionEntry[]) : [];
};

export function buildStatement(b: ExprBuilder, c: Children): Statement {
  return v<Statement>(b, node(c, 'pipelineStmt') ?? node(c, 'createStmt'));
}

export function buildPipeline(b: ExprBuilder, n: CstNode): Statement {
  const c = n.children as Children;
  return { kind: 'pipeline', name: identAt(c, 'name', b.spans), options: opts(b, c), span: b.spans.node(n) };
}

export function buildCreate(b: ExprBuilder, n: CstNode): Statement {
  const c = n.children as Children;
  const body = need(node(c, 'sourceBody') ?? node(c, 'viewBody') ?? node(c, 'sinkBody') ?? node(c, 'catalogBody') ?? node(c, 'compactionBody'));
  // The statement's span starts at CREATE, not at the body.
  return { ...(b.visit(body) as Statement), span: b.spans.node(n) };
}

export function buildSource(b: ExprBuilder, n: CstNode): CreateSourceStmt {
  const c = n.children as Children;
  const elements = nodes(c, 'sourceElement').map((e) => b.visit(e) as SourceElement);
  let watermark: WatermarkDef | null = null;
  let primaryKey: CreateSourceStmt['primaryKey'] = null;
  const columns: ColumnDef[] = [];
  for (const e of elements) {
    if (e.kind === 'column') columns.push(e.def);
    else if (e.kind === 'watermark') watermark ??= e.def;
    else primaryKey ??= e.def;
  }
  return {
    kind: 'source',
    name: identAt(c, 'name', b.spans),
    // A list holding only WATERMARK / PRIMARY KEY declares no columns: they come from the schema.
    columns: columns.length > 0 ? columns : null,
    watermark,
    primaryKey,
    options: opts(b, c),
    span: b.spans.node(n),
  };
}

export type SourceElement =
  | { kind: 'column'; def: ColumnDef }
  | { kind: 'watermark'; def: WatermarkDef }
  | { kind: 'pk'; def: { columns: Ident[]; span: CreateSourceStmt['span'] } };

export function buildSourceElement(b: ExprBuilder, c: Children): SourceElement {
  const w = node(c, 'watermarkDef');
  if (w) {
    const wc = w.children as Children;
    return { kind: 'watermark', def: { column: identAt(wc, 'column', b.spans), expr: v<Expr>(b, node(wc, 'expr')), span: b.spans.node(w) } };
  }
  const pk = node(c, 'primaryKeyDef');
  if (pk) {
    const cols = identsAt(pk.children as Children, 'columns', b.spans);
    return { kind: 'pk', def: { columns: cols, span: b.spans.node(pk) } };
  }
  const col = need(node(c, 'columnDef'));
  const cc = col.children as Children;
  const t = buildType(b, need(node(cc, 'dataType')));
  const mk = tok(cc, 'metadataKey');
  return {
    kind: 'column',
    def: {
      name: identAt(cc, 'name', b.spans),
      type: t.type,
      typeSpan: t.span,
      metadataFrom: mk ? { key: unquoteString(mk.image), span: b.spans.token(mk) } : null,
      span: b.spans.node(col),
    },
  };
}

export function buildWithOptions(b: ExprBuilder, c: Children): OptionEntry[] {
  return nodes(c, 'optionEntry').map((o) => b.visit(o) as OptionEntry);
}

export function buildOption(b: ExprBuilder, n: CstNode): OptionEntry {
  const c = n.children as Children;
  const parts = toks(c, 'keyPart');
  const key = parts.map((p) => (p.image.startsWith('"') ? p.image.slice(1, -1).replace(/""/g, '"') : p.image)).join('.').toLowerCase();
  const keySpan = b.spans.between(need(parts[0]), need(parts[parts.length - 1]));
  return { key, keySpan, value: optionValue(b, c), span: b.spans.node(n) };
}

function optionValue(b: ExprBuilder, c: Children): OptionValue {
  const str = tok(c, 'StringLit');
  if (str) {
    const span = b.spans.token(str);
    const raw = unquoteString(str.image);
    const sub = substituteEnv(raw, span, b.spans.ctx);
    return { kind: 'string', text: sub.text, raw, envVars: sub.envVars, span };
  }
  const num = tok(c, 'NumberLit');
  if (num) {
    const minus = tok(c, 'Minus');
    const text = (minus ? '-' : '') + num.image;
    return { kind: 'number', text, raw: text, envVars: [], span: minus ? b.spans.between(minus, num) : b.spans.token(num) };
  }
  const bool = need(tok(c, 'TRUE') ?? tok(c, 'FALSE'));
  return { kind: 'boolean', text: bool.tokenType.name.toLowerCase(), raw: bool.image, envVars: [], span: b.spans.token(bool) };
}

export function buildView(b: ExprBuilder, n: CstNode): Statement {
  const c = n.children as Children;
  const emit = node(c, 'emitClause');
  const lateness = node(c, 'lateness');
  const onLate = node(c, 'onLateClause');
  return {
    kind: 'view',
    name: identAt(c, 'name', b.spans),
    query: v<Query>(b, node(c, 'query')),
    emit: emit ? { mode: emit.children.CHANGES ? 'changes' : 'on_window_close', span: b.spans.node(emit) } : null,
    allowedLateness: lateness ? v<IntervalLit>(b, lateness) : null,
    onLate: onLate ? buildOnLate(b, onLate) : null,
    options: opts(b, c),
    span: b.spans.node(n),
  };
}

function buildOnLate(b: ExprBuilder, n: CstNode): OnLate {
  const c = n.children as Children;
  const span = b.spans.node(n);
  const target = optIdentAt(c, 'target', b.spans);
  if (target) return { kind: 'to', target, span };
  return { kind: 'drop', span };
}

export function buildSink(b: ExprBuilder, n: CstNode): Statement {
  const c = n.children as Children;
  const from = node(c, 'from');
  const query = node(c, 'query');
  return {
    kind: 'sink',
    name: identAt(c, 'name', b.spans),
    from: from ? v<QualifiedName>(b, from) : null,
    query: query ? v<Query>(b, query) : null,
    options: opts(b, c),
    span: b.spans.node(n),
  };
}

export function buildCatalog(b: ExprBuilder, n: CstNode): Statement {
  const c = n.children as Children;
  return { kind: 'catalog', name: identAt(c, 'name', b.spans), options: opts(b, c), span: b.spans.node(n) };
}

export function buildCompaction(b: ExprBuilder, n: CstNode): Statement {
  const c = n.children as Children;
  const schedule = node(c, 'schedule');
  return {
    kind: 'compaction',
    name: identAt(c, 'name', b.spans),
    target: identAt(c, 'target', b.spans),
    actions: nodes(c, 'compactionAction').map((a) => b.visit(a) as CompactionAction),
    schedule: schedule ? v<IntervalLit>(b, schedule) : null,
    span: b.spans.node(n),
  };
}

function checkField(b: ExprBuilder, c: Children, expected: string): void {
  const id = optIdentAt(c, 'field', b.spans);
  if (!id) return;
  if (id.name !== expected) b.spans.ctx.diagnostics.report('syntax-bad-compaction-field', id.span, { expected, found: id.name });
}

function wholeNumber(b: ExprBuilder, t: IToken | undefined, what: string): number | null {
  if (!t) return null;
  if (!/^\d+$/.test(t.image)) {
    b.spans.ctx.diagnostics.report('syntax-bad-number', b.spans.token(t), { text: t.image, what });
    return null;
  }
  return Number(t.image);
}

const size = (b: ExprBuilder, t: IToken | undefined): SizeLit | null => (t ? { text: unquoteString(t.image), span: b.spans.token(t) } : null);

export function buildRewriteData(b: ExprBuilder, n: CstNode): CompactionAction {
  const c = n.children as Children;
  checkField(b, c, 'file_size');
  return {
    kind: 'rewrite_data_files',
    fileSizeBelow: size(b, tok(c, 'below')),
    target: size(b, tok(c, 'target')),
    minInputFiles: wholeNumber(b, tok(c, 'minInputFiles'), 'MIN INPUT FILES'),
    span: b.spans.node(n),
  };
}

export function buildRewriteDelete(b: ExprBuilder, n: CstNode): CompactionAction {
  const c = n.children as Children;
  checkField(b, c, 'delete_ratio');
  const text = need(tok(c, 'ratio')).image;
  const ratio = Number(text);
  return { kind: 'rewrite_delete_files', deleteRatioAbove: c.PERCENT ? ratio / 100 : ratio, ...(c.PERCENT ? { percentText: text } : {}), span: b.spans.node(n) };
}

export function buildExpire(b: ExprBuilder, n: CstNode): CompactionAction {
  const c = n.children as Children;
  return {
    kind: 'expire_snapshots',
    olderThan: v<IntervalLit>(b, node(c, 'olderThan')),
    retainLast: wholeNumber(b, tok(c, 'retainLast'), 'RETAIN LAST'),
    span: b.spans.node(n),
  };
}

export function buildRemoveOrphans(b: ExprBuilder, n: CstNode): CompactionAction {
  const c = n.children as Children;
  return { kind: 'remove_orphan_files', olderThan: v<IntervalLit>(b, node(c, 'olderThan')), span: b.spans.node(n) };
}

