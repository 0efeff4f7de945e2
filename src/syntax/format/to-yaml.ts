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
  Statement,
  WatermarkDef,
} from '../ast.ts';
import { formatSqlType } from '../../types/sql-type.ts';
import { assertNever } from '../../util/assert-never.ts';
import { formatYamlDuration } from '../yaml/duration.ts';
import { formatIdentYaml, formatQualifiedYaml } from '../yaml/names.ts';
import { query as formatQuery } from './to-sql.ts';
import { expr as formatExpr } from './to-sql-expr.ts';

const SECTION_ORDER = ['catalog', 'source', 'view', 'sink', 'compaction'] as const;
const SECTION_KEY: Record<(typeof SECTION_ORDER)[number], string> = {
  catalog: 'catalogs',
  source: 'sources',
  view: 'views',
  sink: 'sinks',
  compaction: 'compaction_policies',
};

export function formatYaml(file: PipeFile): string {
  const root = new YAMLMap();
  const pipeline = file.statements.find((s) => s.kind === 'pipeline');
  if (pipeline) {
    add(root, 'pipeline', str(formatIdentYaml(pipeline.name)));
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
      const codes = allows.get(s);
      if (codes) key.commentBefore = codes.map((c) => ` pipec:allow ${c}`).join('\n');
    });
  }
  const doc = new Document();
  doc.contents = root;
  if (root.items.length === 0) return '';
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
  for (const o of options) {
    const dotted = /^fields\.([^.]+)\.(.+)$/.exec(o.key);
    if (!dotted) {
      add(m, o.key, optionScalar(o.value));
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
  }
  if (s.columns) {
    const cols = new YAMLMap();
    for (const c of s.columns) {
      const spec = flowMap();
      add(spec, 'type', str(formatSqlType(c.type, false)));
      if (!c.type.nullable) add(spec, 'not_null', new Scalar(true));
      if (c.metadataFrom) add(spec, 'metadata_from', str(c.metadataFrom.key));
      add(cols, formatIdentYaml(c.name), spec);
    }
    add(m, 'columns', cols);
  }
  if (s.primaryKey) {
    const pk = new YAMLSeq();
    pk.flow = true;
    for (const c of s.primaryKey.columns) pk.items.push(str(formatIdentYaml(c)));
    add(m, 'primary_key', pk);
  }
  if (s.watermark) add(m, 'watermark', watermarkNode(s.watermark));
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
  for (const a of s.actions) actions.items.push(actionNode(a));
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
  for (const o of options) add(m, o.key, optionScalar(o.value));
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
