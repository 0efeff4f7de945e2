// CREATE SOURCE: connector options, columns (declared, from a schema, or from the PostgreSQL
// catalog), primary key, watermark, Kafka message key and datagen field options → IrSource.
import type { CreateSourceStmt, Expr, OptionEntry } from '../syntax/ast.ts';
import type { FileSourceFormat, IrColumn, IrSource, IrSourceBase, IrWatermark, KafkaSourceFormat, SourceConnector, SourceFormat } from '../plan/ir.ts';
import { formatSqlType, type SqlType } from '../types/sql-type.ts';
import { checkDeclaredColumns } from '../schema/index.ts';
import type { LoadedSchema } from '../schema/schema-loader.ts';
import { suggest } from '../util/suggest.ts';
import type { Checker } from './checker.ts';
import { checkOptions, optionIdent, splitList, type CheckedOptions, type OptType } from './options.ts';
import { connectorNamed, sourceConnectorNames } from '../connectors/index.ts';
import type { DynamicOptions } from '../connectors/descriptor.ts';
import { findColumn } from './scope.ts';
import { isCalendarInterval, parseDuration } from './units.ts';
import { parseTimestampLiteral } from './literals.ts';

export function connectorOf(ck: Checker, kind: 'source' | 'sink', name: string, span: CreateSourceStmt['span'], options: OptionEntry[], known: readonly string[]): string | null {
  const e = options.find((o) => o.key === 'connector');
  if (!e) {
    ck.bag.report('missing-connector', span, { kind, name });
    return null;
  }
  const c = e.value.text.trim().toLowerCase();
  if (!known.includes(c)) {
    ck.bag.report('unknown-connector', e.value.span, { kind, connector: e.value.text, known: known.join(', '), suggestion: suggest(c, [...known]) });
    return null;
  }
  return c;
}

export async function checkSource(ck: Checker, s: CreateSourceStmt): Promise<void> {
  const bag = ck.bag;
  const name = s.name.name;
  const connector = connectorOf(ck, 'source', name, s.name.span, s.options, sourceConnectorNames()) as SourceConnector | null;
  const side = connector ? connectorNamed(connector)?.source : undefined;
  const declared = s.columns && s.columns.length > 0 ? s.columns : null;
  const declaredNames = (declared ?? []).map((c) => c.name.name);
  const opts = connector && side
    ? checkOptions(s.options, side.options, `${connector} source '${name}'`, s.name.span, bag, side.dynamic ? dynamicKey(ck, declared ?? [], side.dynamic) : undefined)
    : null;

  // ---- columns
  let columns: IrColumn[] | null = null;
  let loaded: LoadedSchema | null = null;
  if (declared) {
    const seen = new Map<string, boolean>();
    for (const c of declared) {
      const k = c.name.quoted ? c.name.name : c.name.name.toLowerCase();
      if (seen.has(k)) bag.report('duplicate-column', c.name.span, { name: c.name.name });
      seen.set(k, true);
    }
  }
  const schemaRef = opts?.string('schema') ?? null;
  if (schemaRef !== null && opts) {
    loaded = await ck.ctx.schemas.load({ ref: schemaRef, format: opts.string('format') ?? null, span: opts.valueSpan('schema', s.span) }, bag);
    if (loaded && declared) checkDeclaredColumns(declared, loaded, bag);
  } else if (connector === 'postgres-cdc' && !declared && opts) {
    const dsn = opts.string('dsn');
    const table = opts.string('table');
    if (dsn !== undefined && table !== undefined) loaded = await ck.ctx.schemas.loadPostgresTable({ dsn, table, span: opts.valueSpan('table', s.span) }, bag);
  }
  if (declared) columns = declared.map((c) => ({ name: c.name.name, type: c.type, metadataFrom: c.metadataFrom?.key ?? null }));
  else if (loaded) columns = loaded.fields.map((f) => withHint({ name: f.name, type: f.type, metadataFrom: null }, f));
  else if (schemaRef === null && !(connector === 'postgres-cdc')) bag.report('source-without-columns', s.name.span, { name });
  const cols = columns ?? [];
  const known = columns !== null;

  const colError = (id: { name: string; quoted: boolean; span: CreateSourceStmt['span'] }): void => {
    if (known) bag.report('unknown-column', id.span, { name: id.name, where: `source '${name}'`, suggestion: suggest(id.name, cols.map((c) => c.name)) });
  };

  // ---- primary key
  let primaryKey: string[] | null = null;
  if (s.primaryKey) {
    primaryKey = [];
    for (const id of s.primaryKey.columns) {
      const c = findColumn(cols, id);
      if (c) primaryKey.push(c.name);
      else colError(id);
    }
  } else if (loaded?.primaryKey) primaryKey = [...loaded.primaryKey];

  // ---- watermark
  let watermark: IrWatermark | null = null;
  if (s.watermark) {
    const w = s.watermark;
    const c = findColumn(cols, w.column);
    if (!c) colError(w.column);
    else if (c.type.kind !== 'timestamp') bag.report('watermark-column-type', w.column.span, { column: c.name, type: formatSqlType(c.type, false) });
    const delay = watermarkDelay(w.expr, w.column, ck);
    if (c && c.type.kind === 'timestamp' && delay !== null) watermark = { column: c.name, delayMs: delay, idleTimeoutMs: opts?.number('idle_timeout') ?? null };
  }

  // ---- kafka key
  let messageKey: string[] | null = null;
  const keyText = opts?.string('key');
  if (keyText !== undefined && opts) {
    messageKey = [];
    for (const k of splitList(keyText)) {
      const c = findColumn(cols, { name: optionIdent(k), quoted: k.trim().startsWith('"') });
      if (c) messageKey.push(c.name);
      else if (known)
        bag.report('unknown-column', opts.valueSpan('key', s.span), { name: optionIdent(k), where: `source '${name}' (option key)`, suggestion: suggest(optionIdent(k), cols.map((x) => x.name)) });
    }
  }

  // ---- datagen fields
  if (connector === 'datagen' && opts && side?.dynamic) checkDatagenFields(ck, opts, cols, s, side.dynamic.match);

  const format = sourceFormat(connector, opts);
  const changelog = connector === 'postgres-cdc' || format === 'debezium-json' ? 'changelog' : 'append';
  if (changelog === 'changelog' && !primaryKey && known) bag.report('cdc-without-primary-key', s.name.span, { name });
  const bounded = (connector === 'file' && opts?.boolean('follow') !== true) || (connector === 'datagen' && opts?.has('total_rows') === true);

  if (!connector) return;
  const rest: Omit<IrSourceBase, 'id' | 'name'> = {
    schemaRef,
    columns: cols,
    usedColumns: cols.map((c) => c.name),
    watermark,
    primaryKey,
    messageKey,
    changelog,
    options: opts?.ir ?? {},
    schemaText: loaded?.canonicalText ?? null,
    span: s.span,
  };
  // Keys in the order plan JSON has always shown them: id, name, connector, format, the rest.
  const head = { id: name, name };
  const ir: IrSource =
    connector === 'kafka'
      ? { ...head, connector, format: (format ?? 'json') as KafkaSourceFormat, ...rest }
      : connector === 'file'
        ? { ...head, connector, format: (format ?? 'ndjson') as FileSourceFormat, ...rest }
        : // postgres-cdc, datagen (and a test's own connector): no value format.
          ({ ...head, connector, format: null, ...rest } as IrSource);
  if (loaded?.compatibility !== undefined) ir.schemaCompatibility = loaded.compatibility;
  ck.sources.set(name, { ir, bounded, watermarkInError: s.watermark !== null && watermark === null });
}

function withHint(c: IrColumn, f: object): IrColumn {
  const hint = (f as { cardinalityHint?: unknown }).cardinalityHint;
  if (typeof hint === 'number') c.cardinalityHint = hint;
  return c;
}

function sourceFormat(connector: SourceConnector | null, opts: CheckedOptions | null): SourceFormat | null {
  const f = opts?.string('format');
  if (connector === 'kafka') return (f ?? 'json') as SourceFormat;
  if (connector === 'file') {
    if (f) return f as SourceFormat;
    const p = (opts?.string('path') ?? '').toLowerCase();
    return p.endsWith('.parquet') ? 'parquet' : p.endsWith('.csv') ? 'csv' : 'ndjson';
  }
  return null;
}

/** `col` → 0; `col - INTERVAL ...` → its length; anything else is reported. */
function watermarkDelay(e: Expr, col: { name: string; quoted: boolean }, ck: Checker): number | null {
  const same = (x: typeof e): boolean => x.kind === 'column' && x.qualifier === null && (x.name.quoted || col.quoted ? x.name.name === col.name : x.name.name.toLowerCase() === col.name.toLowerCase());
  if (same(e)) return 0;
  if (e.kind === 'binary' && e.op === '-' && same(e.left) && e.right.kind === 'interval') {
    if (isCalendarInterval(e.right)) {
      ck.bag.report('calendar-interval', e.right.span, { text: e.right.text });
      return null;
    }
    if (e.right.ms < 0) {
      ck.bag.report('watermark-expr', e.span, { column: col.name });
      return null;
    }
    return e.right.ms;
  }
  ck.bag.report('watermark-expr', e.span, { column: col.name });
  return null;
}

/** Types a connector's per-column keys (datagen's `fields.<col>.<attr>`); unknown columns are reported here. */
function dynamicKey(ck: Checker, declared: NonNullable<CreateSourceStmt['columns']>, dyn: DynamicOptions): (e: OptionEntry) => OptType | null {
  return (e) => {
    const m = dyn.match.exec(e.key);
    if (!m) return null;
    const attr = Object.hasOwn(dyn.attrs, m[2]!) ? dyn.attrs[m[2]!] : undefined;
    if (!attr) return null;
    const col = m[1]!;
    if (!declared.some((c) => c.name.name.toLowerCase() === col.toLowerCase())) {
      ck.bag.report('datagen-unknown-field', e.keySpan, { column: col, suggestion: suggest(col, declared.map((c) => c.name.name)) });
      return { kind: 'string' };
    }
    return attr;
  };
}

function checkDatagenFields(ck: Checker, opts: CheckedOptions, cols: IrColumn[], s: CreateSourceStmt, fieldKey: RegExp): void {
  const byCol = new Map<string, Map<string, string>>();
  for (const [key, entry] of opts.entries) {
    const m = fieldKey.exec(key);
    if (!m) continue;
    const c = cols.find((x) => x.name.toLowerCase() === m[1]!.toLowerCase());
    if (!c) continue;
    if (!byCol.has(c.name)) byCol.set(c.name, new Map());
    byCol.get(c.name)!.set(m[2]!, entry.value.text);
  }
  for (const [col, attrs] of byCol) {
    const c = cols.find((x) => x.name === col)!;
    const kind = attrs.get('kind');
    const where = opts.entries.get(`fields.${col}.kind`)?.span ?? s.name.span;
    if (kind === 'choice') {
      const values = splitList(attrs.get('values') ?? '');
      if (values.length === 0) ck.bag.report('datagen-field-invalid', where, { column: col, detail: "kind 'choice' needs values = 'a,b,c'" });
      else c.cardinalityHint = new Set(values).size;
    }
    const min = attrs.get('min');
    const max = attrs.get('max');
    for (const attr of ['min', 'max', 'step'] as const) {
      const v = attrs.get(attr);
      if (v === undefined) continue;
      const problem = datagenValueProblem(c.type, attr, v);
      if (problem) ck.bag.report('datagen-field-invalid', opts.entries.get(`fields.${col}.${attr}`)?.value.span ?? where, { column: col, detail: problem });
    }
    if (min !== undefined && max !== undefined && isNumericType(c.type) && Number(min) > Number(max))
      ck.bag.report('datagen-field-invalid', where, { column: col, detail: `min (${min}) is greater than max (${max})` });
  }
}

/** Whether a datagen bound fits its column: numbers for numeric columns, timestamps (and a duration step) for time columns. */
function datagenValueProblem(t: SqlType, attr: 'min' | 'max' | 'step', v: string): string | null {
  if (isNumericType(t)) return Number.isFinite(Number(v)) && v.trim() !== '' ? null : `${attr} '${v}' is not a number`;
  if (t.kind === 'timestamp' || t.kind === 'date') {
    if (attr === 'step') return parseDuration(v) !== null ? null : `step '${v}' is not a duration such as '30 ms'`;
    return parseTimestampLiteral(v) ? null : `${attr} '${v}' is not a timestamp 'YYYY-MM-DD HH:MM:SS'`;
  }
  return null;
}

const isNumericType = (t: SqlType): boolean => ['int', 'bigint', 'float', 'double', 'decimal'].includes(t.kind);
