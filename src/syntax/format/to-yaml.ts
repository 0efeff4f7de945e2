// formatYaml: the canonical `.pipe.yaml` text of a PipeFile (from either front end). Fixed key
// order, SQL bodies printed by the SQL printer into `|` blocks, so `pipec fmt --to yaml|sql`
// round-trips. The spelling of each construct is documented in src/syntax/yaml/CONTEXT.md.
import { Document, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from 'yaml';
import type {
  CompactionAction,
  CreateCatalogStmt,
  CreateCompactionStmt,
  CreateSinkStmt,
  CreateSourceStmt,
  CreateViewStmt,
  OptionEntry,
  OptionValue,
  PipeFile,
  SourceComment,
  Statement,
  WatermarkDef,
} from '../ast.ts';
import { formatSqlType } from '../../types/sql-type.ts';
import { assertNever } from '../../util/assert-never.ts';
import { formatYamlDuration } from '../yaml/duration.ts';
import { formatIdentYaml, formatQualifiedYaml } from '../yaml/names.ts';
import { query as formatQuery } from './to-sql.ts';
import { expr as formatExpr } from './to-sql-expr.ts';
import { joinComments, planYamlComments, yamlCommentText, type YamlComments } from './to-yaml-comments.ts';
import type { ItemComments } from './to-sql-comments.ts';
import type { Span } from '../../diagnostics/span.ts';

const SECTION_ORDER = ['catalog', 'source', 'view', 'sink', 'compaction'] as const;
const SECTION_KEY: Record<(typeof SECTION_ORDER)[number], string> = {
  catalog: 'catalogs',
  source: 'sources',
  view: 'views',
  sink: 'sinks',
  compaction: 'compaction_policies',
};

export function formatYaml(file: PipeFile): string {
  // Comments are placed by the SQL printer's rules (to-yaml-comments.ts); without any (an AST built by
  // hand), only the suppressions must survive.
  yc = planYamlComments(file);
  const root = new YAMLMap();
  const pipeline = file.statements.find((s) => s.kind === 'pipeline');
  if (pipeline) {
    const name = str(formatIdentYaml(pipeline.name));
    const p = add(root, 'pipeline', name);
    (p.key as Scalar).commentBefore = joinComments(yc.above.get(pipeline) ?? []);
    const t = yc.trailing.get(pipeline);
    if (t) name.comment = yamlCommentText(t);
    if (pipeline.options.length > 0) {
      const options = new YAMLMap();
      addOptions(options, pipeline.options);
      add(root, 'options', options);
    }
  }
  const allows = suppressionsByStatement(file);
  for (const kind of SECTION_ORDER) {
    const stmts = file.statements.filter((s) => s.kind === kind);
    if (stmts.length === 0) continue;
    const section = new YAMLMap();
    const sectionPair = add(root, SECTION_KEY[kind], section);
    if (root.items.length > 1) (sectionPair.key as Scalar).spaceBefore = true;
    stmts.forEach((s, i) => {
      const body = statementBody(s);
      if (!body) return;
      const p = add(section, formatIdentYaml(s.name), body);
      const key = p.key as Scalar;
      if (i > 0 && !(body instanceof YAMLMap && body.flow)) key.spaceBefore = true;
      if (file.comments === undefined) {
        const codes = allows.get(s);
        if (codes) key.commentBefore = codes.map((c) => ` pipec:allow ${c}`).join('\n');
      } else {
        key.commentBefore = joinComments(yc.above.get(s) ?? []);
        const t = yc.trailing.get(s);
        if (t) key.comment = yamlCommentText(t);
      }
    });
  }
  const doc = new Document();
  doc.contents = root;
  doc.comment = joinComments(yc.rest) ?? null;
  if (root.items.length === 0) return joinComments(yc.rest) ? `${yc.rest.map((c) => `#${yamlCommentText(c)}`).join('\n')}\n` : '';
  return doc.toString({ lineWidth: 0, indent: 2, flowCollectionPadding: true, singleQuote: true });
}

function statementBody(s: Statement): Node | null {
  switch (s.kind) {
    case 'pipeline':
      return null;
    case 'catalog':
      return catalogBody(s);
    case 'source':
      return sourceBody(s);
    case 'view':
      return viewBody(s);
    case 'sink':
      return sinkBody(s);
    case 'compaction':
      return compactionBody(s);
    default:
      return assertNever(s);
  }
}

function catalogBody(s: CreateCatalogStmt): YAMLMap {
  const m = new YAMLMap();
  addOptions(m, hoist(s.options, 'type'));
  return m;
}

function sourceBody(s: CreateSourceStmt): YAMLMap {
  const m = new YAMLMap();
  const options = hoist(s.options, 'connector');
  let fields: YAMLMap | null = null;
  const placed = new Placer();
  for (const o of options) {
    const dotted = /^fields\.([^.]+)\.(.+)$/.exec(o.key);
    if (!dotted) {
      const v = optionScalar(o.value);
      placed.item(add(m, o.key, v), v, o.span);
      continue;
    }
    if (!fields) add(m, 'fields', (fields = new YAMLMap()));
    // The column is a name in YAML (read back with identOf): quote it unless it is a plain word.
    const colKey = /^[a-z_][a-z0-9_]*$/.test(dotted[1]!) ? dotted[1]! : `"${dotted[1]!.replace(/"/g, '""')}"`;
    let col = fields.items.find((p) => (p.key as Scalar).value === colKey)?.value as YAMLMap | undefined;
    if (!col) {
      col = flowMap();
      add(fields, colKey, col);
    }
    add(col, dotted[2]!, optionScalar(o.value));
    // A flow mapping holds no comments: every comment of a `fields.<col>.<attr>` option goes above the column.
    const fc = yc.items.get(o.span);
    const colPair = fields.items.find((p) => p.value === col)!;
    if (fc) appendBefore(colPair.key as Scalar, [...fc.before, ...(fc.trailing ? [fc.trailing] : []), ...fc.continuation]);
  }
  placed.end(m);
  const colPlacer = new Placer();
  if (s.columns) {
    const cols = new YAMLMap();
    for (const c of s.columns) {
      const spec = flowMap();
      add(spec, 'type', str(formatSqlType(c.type, false)));
      if (!c.type.nullable) add(spec, 'not_null', new Scalar(true));
      if (c.metadataFrom) add(spec, 'metadata_from', str(c.metadataFrom.key));
      colPlacer.item(add(cols, formatIdentYaml(c.name), spec), spec, c.span);
    }
    colPlacer.end(cols);
    add(m, 'columns', cols);
  }
  if (s.primaryKey) {
    const pk = new YAMLSeq();
    pk.flow = true;
    for (const c of s.primaryKey.columns) pk.items.push(str(formatIdentYaml(c)));
    colPlacer.item(add(m, 'primary_key', pk), pk, s.primaryKey.span);
  }
  if (s.watermark) {
    const w = watermarkNode(s.watermark);
    colPlacer.item(add(m, 'watermark', w), w, s.watermark.span);
  }
  colPlacer.end(m);
  return m;
}

/** `column - INTERVAL ...` is the common case and reads as `delay`; anything else stays SQL. */
function watermarkNode(w: WatermarkDef): YAMLMap {
  const m = flowMap();
  add(m, 'column', str(formatIdentYaml(w.column)));
  const e = w.expr;
  if (
    e.kind === 'binary' &&
    e.op === '-' &&
    e.left.kind === 'column' &&
    e.left.qualifier === null &&
    e.left.name.name === w.column.name &&
    e.right.kind === 'interval'
  ) {
    add(m, 'delay', str(formatYamlDuration(e.right)));
  } else {
    add(m, 'expr', str(formatExpr(e)));
  }
  return m;
}

function viewBody(s: CreateViewStmt): YAMLMap {
  const m = new YAMLMap();
  add(m, 'query', sqlBlock(formatQuery(s.query)));
  if (s.emit) add(m, 'emit', str(s.emit.mode));
  if (s.allowedLateness) add(m, 'allowed_lateness', str(formatYamlDuration(s.allowedLateness)));
  if (s.onLate) {
    if (s.onLate.kind === 'drop') add(m, 'on_late', str('drop'));
    else {
      const to = flowMap();
      add(to, 'to', str(formatIdentYaml(s.onLate.target)));
      add(m, 'on_late', to);
    }
  }
  addOptions(m, s.options);
  return m;
}

function sinkBody(s: CreateSinkStmt): YAMLMap {
  const m = new YAMLMap();
  if (s.from) add(m, 'from', str(formatQualifiedYaml(s.from)));
  if (s.query) add(m, 'query', sqlBlock(formatQuery(s.query)));
  addOptions(m, hoist(s.options, 'connector'));
  return m;
}

function compactionBody(s: CreateCompactionStmt): YAMLMap {
  const m = new YAMLMap();
  add(m, 'on', str(formatIdentYaml(s.target)));
  const actions = new YAMLSeq();
  let carry: SourceComment[] = [];
  for (const a of s.actions) {
    const node = actionNode(a);
    const c = yc.items.get(a.span);
    node.commentBefore = joinComments([...carry, ...(c?.before ?? [])]);
    if (c?.trailing) (node.items[0]!.value as YAMLMap).comment = yamlCommentText(c.trailing);
    carry = c?.continuation ?? [];
    actions.items.push(node);
  }
  if (carry.length) actions.comment = joinComments(carry);
  add(m, 'actions', actions);
  if (s.schedule) add(m, 'schedule', str(formatYamlDuration(s.schedule)));
  return m;
}

function actionNode(a: CompactionAction): YAMLMap {
  const body = flowMap();
  switch (a.kind) {
    case 'rewrite_data_files':
      if (a.fileSizeBelow) add(body, 'file_size_below', str(a.fileSizeBelow.text));
      if (a.target) add(body, 'target', str(a.target.text));
      if (a.minInputFiles !== null) add(body, 'min_input_files', new Scalar(a.minInputFiles));
      break;
    case 'rewrite_delete_files':
      add(body, 'delete_ratio_above', new Scalar(a.deleteRatioAbove));
      break;
    case 'expire_snapshots':
      add(body, 'older_than', str(formatYamlDuration(a.olderThan)));
      if (a.retainLast !== null) add(body, 'retain_last', new Scalar(a.retainLast));
      break;
    case 'remove_orphan_files':
      add(body, 'older_than', str(formatYamlDuration(a.olderThan)));
      break;
    default:
      assertNever(a);
  }
  const m = new YAMLMap();
  add(m, a.kind, body);
  return m;
}

// ---------------------------------------------------------------- helpers

function add(m: YAMLMap, key: string, value: Node): Pair {
  const p = new Pair(new Scalar(key), value);
  m.items.push(p);
  return p;
}

const str = (s: string): Scalar => new Scalar(s);

function flowMap(): YAMLMap {
  const m = new YAMLMap();
  m.flow = true;
  return m;
}

function sqlBlock(sql: string): Scalar {
  const s = new Scalar(`${sql.replace(/\s+$/, '')}\n`);
  s.type = Scalar.BLOCK_LITERAL;
  return s;
}

/** The option as written (`raw` keeps `${VAR}`), with its YAML scalar kind. */
function optionScalar(v: OptionValue): Scalar {
  switch (v.kind) {
    case 'string':
      return str(v.raw);
    case 'boolean':
      return new Scalar(v.raw.toLowerCase() === 'true');
    case 'number': {
      // Integers as BigInt so long ids keep every digit; decimals keep their trailing zeros.
      if (/^-?\d+$/.test(v.raw)) return new Scalar(BigInt(v.raw));
      const n = new Scalar(Number(v.raw));
      const frac = /^-?\d+\.(\d+)$/.exec(v.raw);
      if (frac) n.minFractionDigits = frac[1]!.length;
      return n;
    }
    default:
      return assertNever(v.kind);
  }
}

function addOptions(m: YAMLMap, options: OptionEntry[]): void {
  const placed = new Placer();
  for (const o of options) {
    const v = optionScalar(o.value);
    placed.item(add(m, o.key, v), v, o.span);
  }
  placed.end(m);
}

/** The comment plan of the file being printed (formatYaml sets it; printing is synchronous). */
let yc: YamlComments = { items: new Map(), above: new Map(), trailing: new Map(), rest: [] };

function appendBefore(key: Scalar, cs: SourceComment[]): void {
  const text = joinComments(cs);
  if (text !== undefined) key.commentBefore = key.commentBefore ? `${key.commentBefore}\n${text}` : text;
}

/**
 * Puts an item's comments on its pair: those before it above the key, the one at the end of its line after
 * the value. Own-line comments continuing that one cannot follow a YAML value on later lines, so they go above
 * the next item of the mapping (or after the mapping, for the last).
 */
class Placer {
  private carry: SourceComment[] = [];

  item(pair: Pair, value: Node, span: Span): void {
    const c: ItemComments | undefined = yc.items.get(span);
    appendBefore(pair.key as Scalar, [...this.carry, ...(c?.before ?? [])]);
    if (c?.trailing) (value as Scalar).comment = yamlCommentText(c.trailing);
    this.carry = c?.continuation ?? [];
  }

  end(m: YAMLMap): void {
    const text = joinComments(this.carry);
    if (text !== undefined) m.comment = m.comment ? `${m.comment}\n${text}` : text;
    this.carry = [];
  }
}

/** Moves the option `key` to the front (the connector or catalog type reads first). */
function hoist(options: OptionEntry[], key: string): OptionEntry[] {
  const first = options.filter((o) => o.key === key);
  return [...first, ...options.filter((o) => o.key !== key)];
}

/** `-- pipec:allow CODE` before a statement → `# pipec:allow CODE` before its YAML entry. */
function suppressionsByStatement(file: PipeFile): Map<Statement, string[]> {
  const out = new Map<Statement, string[]>();
  const ordered = [...file.statements].sort((a, b) => a.span.start.offset - b.span.start.offset);
  for (const sup of file.suppressions) {
    const target = ordered.find((s) => s.span.start.offset >= sup.span.end.offset && s.kind !== 'pipeline');
    if (!target) continue;
    const list = out.get(target) ?? [];
    if (!list.includes(sup.code)) list.push(sup.code);
    out.set(target, list);
  }
  return out;
}
