// Generates the pipeline module: plain functions specialized to the plan (decoders of the
// used columns, predicates, projections, key and accumulator functions, encoders) and the
// wiring the runner instantiates. The result is the body of `definePipeline(env)`, which
// reads the runtime library as `rt`.
import { createHash } from 'node:crypto';
import { stateFingerprints } from '../../../src/plan/state-fingerprints.ts';
import type { IrColumn, IrOperator, IrOption, IrSink, IrSource, PlanDoc, SqlType } from '../../../src/plan/ir.ts';
import type { ExprScope } from './expr.ts';
import { formatModule, sinkModule, sourceModule, type RuntimeModuleRef } from '../../../src/connectors/runtime-modules.ts';
import { expectText, fastReaderCode, jsonValueCode, readerCall, textValueCode } from './js-types.ts';
import { opColumnName } from '../lib/ops/types.ts';
import { icebergSinkField, icebergSinkUnsupported } from './iceberg-sink.ts';
import { jsComment, jsNames, jsString } from './js-text.ts';
import { operatorCode, type OperatorContext } from './operators.ts';
import { versionColumn, versionDecodeLines, VERSION_COLUMN, type VersionClock } from './temporal-join.ts';
import { lowerPlan } from '../../../src/plan/physical/lower.ts';
import type { PhysicalPlan } from '../../../src/plan/physical/types.ts';
import { icebergSinks } from '../../iceberg/sink-input.ts';
import type { SinkConfig, SourceConfig } from '../lib/config/config-types.ts';
import { columnIndex } from '../../../src/plan/graph.ts';

export interface Unsupported {
  what: string;
  name: string;
  span: IrSource['span'];
}

export interface GeneratedBody {
  body: string;
  unsupported: Unsupported[];
  /** The runtime modules the pipeline needs (its connectors and binary formats), sorted by name. */
  modules: RuntimeModuleRef[];
}


// Every user text reaches the code through js-text.ts: `q` for literals, `cm` in comments,
// `ident` (made per module by `jsNames`, collision-free) in identifiers.
const q = jsString;
const cm = jsComment;
type Ident = (id: string) => string;

function optionCode(o: IrOption): string {
  return o.envVars.length > 0 ? `rt.subst(${q(o.template)}, env)` : q(o.value);
}

function optionsCode(opts: Record<string, IrOption>, indent: string): string {
  const keys = Object.keys(opts).sort();
  if (keys.length === 0) return '{}';
  return '{\n' + keys.map((k) => `${indent}  ${q(k)}: ${optionCode(opts[k]!)},`).join('\n') + `\n${indent}}`;
}

function columnDefCode(c: IrColumn): string {
  const t = c.type;
  let extra = t.kind === 'decimal' ? `, precision: ${t.precision}, scale: ${t.scale}` : '';
  if (c.metadataFrom !== null) extra += `, meta: ${q(c.metadataFrom)}`;
  return `{ name: ${q(c.name)}, kind: ${q(t.kind)}, nullable: ${t.nullable}${extra} }`;
}

/**
 * The record keys a JSON source's decoder reads, when it reads nothing else: not for a
 * changelog source (its row kind comes from the record) or a version clock's column.
 */
function jsonReads(s: IrSource, cols: IrColumn[], clock: VersionClock | undefined): string[] | null {
  if (s.connector === 'datagen' || (s.format !== null && s.format !== 'json' && s.format !== 'ndjson') || s.changelog === 'changelog' || clock !== undefined) return null;
  return cols.filter((c) => c.metadataFrom === null).map((c) => c.name);
}

/**
 * Plan fingerprint for checkpoints: the plan without source positions and without the spec's
 * path (editing comments or running from another folder keeps the state usable), with options
 * as written (`${PIPEC_CLICKHOUSE_URL}`), not their values: a checkpoint stays usable when a
 * broker moves or a password rotates, and a build does not depend on the machine's profile.
 */
export function fingerprint(plan: PlanDoc): string {
  // Sinks in the shape they had before IrSink became a union (every section, null when not the
  // connector's): fingerprints of existing builds and checkpoints stay the same.
  const sinks = plan.sinks.map((s) => {
    const { span, ...rest } = s as IrSink & { iceberg?: unknown; clickhouse?: unknown; kafka?: unknown; file?: unknown };
    const { iceberg = null, clickhouse = null, kafka = null, file = null, ...common } = rest;
    return { ...common, iceberg, clickhouse, kafka, file, span };
  });
  const text = JSON.stringify(asWritten({ ...plan, pipeline: { ...plan.pipeline, file: '' }, sinks }));
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * A copy of a plan value without `span` keys and with options as written: what JSON.stringify
 * with a replacer doing the same would print (keys in the same order), at less than half the
 * cost (a replacer takes JSON.stringify off its fast path, once per pipeline of a build).
 */
function asWritten(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(asWritten);
  if ('template' in v && 'envVars' in v && 'value' in v) return (v as IrOption).template;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) if (k !== 'span') out[k] = asWritten(o[k]);
  return out;
}

/** `phys`: the plan's physical lowering (the build driver's, else lowered here). */
export function generateBody(plan: PlanDoc, phys: PhysicalPlan = lowerPlan(plan)): GeneratedBody {
  const ident = jsNames([...plan.sources.map((s) => s.id), ...plan.operators.map((o) => o.id), ...plan.sinks.map((s) => s.id)]);
  const out: string[] = [];
  const unsupported: Unsupported[] = [];
  const opById = new Map(plan.operators.map((o) => [o.id, o]));
  const srcById = new Map(plan.sources.map((s) => [s.id, s]));

  // Every physical decision (liveness, changelog normalize, version clocks, '-U' emission, row
  // layouts, panes, connector configs) comes from the lowering: this generator only spells it.
  const physSrc = new Map(phys.sources.map((s) => [s.id, s]));
  const physOp = new Map(phys.operators.map((o) => [o.id, o]));
  const physSink = new Map(phys.sinks.map((s) => [s.id, s]));
  const icebergById = new Map(icebergSinks(plan, phys).map((s) => [s.id, s]));
  const ops = plan.operators.filter((o) => physOp.get(o.id)!.live);
  const sources = plan.sources.filter((s) => physSrc.get(s.id)!.live);

  const modules = new Map<string, RuntimeModuleRef>();
  const need = (m: RuntimeModuleRef | undefined): boolean => (m ? (modules.set(m.module, m), true) : false);
  for (const s of sources) {
    if (!need(sourceModule(s.connector))) unsupported.push({ what: `source connector '${s.connector}'`, name: s.name, span: s.span });
    if (s.format) need(formatModule(s.format));
  }
  for (const s of plan.sinks) if (!need(sinkModule(s.connector))) unsupported.push({ what: `sink connector '${s.connector}'`, name: s.name, span: s.span });
  for (const s of plan.sinks) if (icebergSinkUnsupported(s)) unsupported.push({ what: icebergSinkUnsupported(s)!, name: s.name, span: s.span });
  unsupported.push(...phys.unsupported);

  const normalized = new Set(phys.sources.filter((s) => s.normalize !== null).map((s) => s.id));
  const clocks = new Map(phys.sources.flatMap((s): [string, VersionClock][] => (s.versionClock ? [[s.id, s.versionClock]] : [])));

  // Row layout of each source, as the lowering lists it (the version clock's column last).
  const srcCols = new Map<string, IrColumn[]>();
  for (const s of sources) {
    const clock = clocks.get(s.id);
    const cols = physSrc.get(s.id)!.rowColumns.map((n) => (clock && n === VERSION_COLUMN ? versionColumn(clock) : s.columns[columnIndex(s.columns, n)]!));
    srcCols.set(s.id, cols);
  }
  /** Output row layout of an operator. */
  const layout = (id: string): IrColumn[] => {
    const o = opById.get(id)!;
    return o.op === 'scan' ? srcCols.get(o.source)! : o.schema;
  };
  const scopeOver = (inputs: IrColumn[][], rowVars: string[], temps: string[]): ExprScope => ({
    column(input, name) {
      const cols = inputs[input] ?? inputs[0]!;
      const i = columnIndex(cols, name);
      if (i < 0) throw new Error(`runtime codegen: column ${name} not found in input ${input}`);
      return { code: `${rowVars[input] ?? rowVars[0]}[${i}]`, type: cols[i]!.type };
    },
    temp() {
      const n = `t${temps.length}`;
      temps.push(n);
      return n;
    },
  });
  const fnWithTemps = (sig: string, temps: string[], body: string): string =>
    `function ${sig} {\n${temps.length ? `  let ${temps.join(', ')};\n` : ''}  ${body}\n}`;

  out.push(`const fingerprint = ${q(fingerprint(plan))};`);
  // State fingerprints by uid (src/plan/state-fingerprints.ts): a checkpoint resumes when each part finds its own.
  const fps = stateFingerprints(plan);
  const fpMap = (m: Record<string, string>): string => `{${Object.keys(m).sort().map((k) => `\n    ${q(k)}: ${q(m[k]!)},`).join('')}${Object.keys(m).length ? '\n  ' : ''}}`;
  out.push(`const state = {\n  sources: ${fpMap(fps.sources)},\n  operators: ${fpMap(fps.operators)},\n  sinks: ${fpMap(fps.sinks)},\n};`);

  // ---------------------------------------------------------------- decoders
  for (const s of sources) {
    const cols = srcCols.get(s.id)!;
    out.push('');
    const versioned = clocks.has(s.id) ? ', plus the commit time as version time' : '';
    out.push(`// source ${cm(s.name)}: ${cm(s.connector)}${s.format ? ' ' + cm(s.format) : ''}; decodes ${cols.length - (versioned ? 1 : 0)} of ${s.columns.length} columns${versioned}`);
    if (s.connector === 'datagen') continue;
    const csv = s.format === 'csv';
    const needsX = !csv && cols.some((c) => c.type.kind === 'decimal' && c.metadataFrom === null);
    const lines: string[] = [`function decode_${ident(s.id)}(o, e) {`, needsX ? '  let v, x;' : '  let v;'];
    // A changelog source puts the row kind in the raw record's metadata; old rows ('-U', '-D')
    // may hold only the key, so NOT NULL is checked on new rows only.
    const cdc = s.changelog === 'changelog';
    if (cdc) lines.push(`  const k = rt.rawKind(o);`, `  const old = k === '-U' || k === '-D';`);
    const clock = clocks.get(s.id);
    cols.forEach((c, i) => {
      if (clock && c.name === VERSION_COLUMN) return void lines.push(...versionDecodeLines(clock, i));
      if (c.metadataFrom !== null) lines.push(`  v = rt.meta(o, ${q(c.metadataFrom)});`);
      else {
        lines.push(`  v = o[${q(c.name)}];`);
        if (csv) lines.push(`  if (v === '') v = null;`);
      }
      if (c.type.kind === 'string' && !csv && c.metadataFrom === null) {
        lines.push(`  const c${i} = typeof v === 'string' ? v : v == null ? null : rt.BAD;`);
      } else lines.push(`  const c${i} = ${csv ? readerCall(c.type, 'v') : fastReaderCode(c.type, 'v', 'x')};`);
      lines.push(`  if (c${i} === rt.BAD) { e.column = ${q(c.name)}; e.reason = ${q(expectText(c.type) + ', got ')} + rt.previewValue(v); return null; }`);
      if (!c.type.nullable) lines.push(`  if (c${i} === null${cdc ? ' && !old' : ''}) { e.column = ${q(c.name)}; e.reason = 'is NULL but declared NOT NULL'; return null; }`);
    });
    const row = `[${cols.map((_c, i) => `c${i}`).join(', ')}]`;
    lines.push(cdc ? `  return rt.setRowKind(${row}, k);` : `  return ${row};`, '}');
    out.push(lines.join('\n'));
  }

  // ---------------------------------------------------------------- operator functions
  // Each operator kind's code comes from one table (operators.ts): its functions here, its instance in `instantiate`.
  const opCx = (o: IrOperator): OperatorContext => ({
    id: ident(o.id),
    layout,
    op: (id) => opById.get(id)!,
    scopeOver,
    fnWithTemps,
    normalized,
    srcById,
    updateBefore: (x) => physOp.get(x.id)!.updateBefore,
    paneOf: (x) => physOp.get(x.id)!.paneMs ?? 0,
  });
  for (const o of ops) out.push(...operatorCode(o).functions(o, opCx(o)));

  // ---------------------------------------------------------------- encoders
  for (const s of plan.sinks) {
    const cols = s.schema;
    // A non-append sink shows each row's kind first: an `op` field / cell (Flink's SQL client).
    const changelog = s.changelog !== 'append';
    // Segments of the JSON text: constant text is merged so each row costs one concatenation
    // per value (quoted values that never need escaping take their quotes from the constants).
    const segs: { lit: boolean; text: string }[] = [];
    const lit = (t: string): void => {
      const last = segs[segs.length - 1];
      if (last?.lit) last.text += t;
      else segs.push({ lit: true, text: t });
    };
    if (changelog) {
      lit(`{${JSON.stringify(opColumnName(cols))}:"`);
      segs.push({ lit: false, text: 'rt.rowKind(r)' });
      lit('"');
    }
    cols.forEach((c, i) => {
      lit((i === 0 && !changelog ? '{' : ',') + JSON.stringify(c.name) + ':');
      const v = `r[${i}]`;
      // A changelog's old rows may be key-only (NULL in NOT NULL columns): every column is checked.
      const nullable = c.type.nullable || changelog;
      const plainQuoted = !nullable && (c.type.kind === 'timestamp' || c.type.kind === 'decimal' || c.type.kind === 'date');
      if (plainQuoted) {
        lit('"');
        segs.push({ lit: false, text: textValueCode(c.type, v) });
        lit('"');
      } else segs.push({ lit: false, text: nullable ? `(${v} === null ? 'null' : ${jsonValueCode(c.type, v)})` : jsonValueCode(c.type, v) });
    });
    lit(cols.length || changelog ? '}' : '{}');
    out.push('', `// sink ${cm(s.name)}: ${cm(s.connector)}`);
    out.push(`function json_${ident(s.id)}(r) {\n  return ${segs.map((x) => (x.lit ? q(x.text) : x.text)).join('\n    + ')};\n}`);
    const cells = cols.map((c, i) => (c.type.nullable || changelog ? `(r[${i}] === null ? 'NULL' : ${textValueCode(c.type, `r[${i}]`)})` : textValueCode(c.type, `r[${i}]`)));
    if (changelog) cells.unshift('rt.rowKind(r)');
    out.push(`function cells_${ident(s.id)}(r) {\n  return [${cells.join(', ')}];\n}`);
  }

  // ---------------------------------------------------------------- the pipeline object
  out.push('', 'return {');
  out.push(`  name: ${q(plan.pipeline.name)},`);
  out.push('  fingerprint,');
  out.push('  state,');
  out.push(`  checkpointIntervalMs: ${plan.pipeline.checkpointIntervalMs},`);
  out.push(`  options: ${optionsCode(plan.pipeline.options, '  ')},`);
  out.push(`  scaleOut: ${q(phys.pipeline.scaleOut)}, deadLetterPath: ${phys.pipeline.deadLetterPath === null ? 'null' : q(phys.pipeline.deadLetterPath)},`);
  out.push('  sources: [');
  for (const s of sources) {
    const cols = srcCols.get(s.id)!;
    const clock: VersionClock | undefined = clocks.get(s.id);
    const ti = s.watermark ? columnIndex(cols, s.watermark.column) : clock ? columnIndex(cols, VERSION_COLUMN) : -1;
    out.push('    {');
    out.push(`      id: ${q(s.id)}, name: ${q(s.name)}, connector: ${q(s.connector)}, format: ${s.format ? q(s.format) : 'null'},`);
    out.push(`      options: ${optionsCode(s.options, '      ')},`);
    out.push(`      config: ${configCode(physSrc.get(s.id)!.config)},`);
    out.push(`      columns: [${cols.map(columnDefCode).join(', ')}],`);
    // The keys decode_ reads from a JSON record: the JSON decoders skip the others unparsed.
    const reads = jsonReads(s, cols, clock);
    if (reads !== null) out.push(`      reads: [${reads.map(q).join(', ')}],`);
    out.push(`      decode: ${s.connector === 'datagen' ? 'null' : `decode_${ident(s.id)}`},`);
    out.push(`      timeIndex: ${ti}, delayMs: ${s.watermark?.delayMs ?? 0}, idleTimeoutMs: ${s.watermark?.idleTimeoutMs ?? clock?.idleTimeoutMs ?? 'null'},`);
    // Avro/Protobuf: the compiled schema (writer of plain `file:` values, reader defaults).
    const wire = physSrc.get(s.id)!.format?.wire ?? null;
    if (wire !== null) out.push(`      formatWire: ${q(wire)},`);
    if ((s.format === 'avro' || s.format === 'protobuf') && s.schemaText !== null) out.push(`      schemaText: ${q(s.schemaText)},`);
    if (normalized.has(s.id)) out.push('      normalized: true,');
    out.push('    },');
  }
  out.push('  ],');
  out.push('  sinks: [');
  for (const s of plan.sinks) {
    out.push(`    { id: ${q(s.id)}, name: ${q(s.name)}, connector: ${q(s.connector)}, options: ${sinkOptionsCode(s)}, config: ${configCode(physSink.get(s.id)!.config)}, columns: [${s.schema.map(columnDefCode).join(', ')}], json: json_${ident(s.id)}, cells: cells_${ident(s.id)}${icebergSinkField(phys, icebergById.get(s.id), '    ')} },`);
  }
  out.push('  ],');
  out.push('  instantiate(b) {');
  out.push(...instantiateCode(plan, ops, layout, ident, normalized, opCx).map((l) => '    ' + l));
  out.push('  },');
  out.push('};');
  const sorted = [...modules.values()].sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
  return { body: out.join('\n'), unsupported, modules: sorted };
}

/**
 * A resolved connector config as an object literal: `${VAR}` templates become `rt.subst` calls
 * (substituted at start, never written into the file), everything else is a JSON literal.
 */
function configCode(c: SourceConfig | SinkConfig): string {
  const fields = Object.keys(c).map((k) => {
    const v = (c as unknown as Record<string, unknown>)[k];
    const code = c.templated.includes(k) && typeof v === 'string' ? `rt.subst(${q(v)}, env)` : literalCode(v);
    return `${q(k)}: ${code}`;
  });
  return `{ ${fields.join(', ')} }`;
}

function literalCode(v: unknown): string {
  if (typeof v === 'string') return q(v);
  if (Array.isArray(v)) return `[${v.map(literalCode).join(', ')}]`;
  return JSON.stringify(v);
}

function sinkOptionsCode(s: IrSink): string {
  const opts: Record<string, IrOption> = { ...s.options };
  if (s.connector === 'file') {
    opts.path ??= { value: s.file.path, template: s.file.path, envVars: [] };
    opts.format = { value: s.file.format, template: s.file.format, envVars: [] };
  }
  return optionsCode(opts, '    ');
}

function instantiateCode(plan: PlanDoc, ops: IrOperator[], layout: (id: string) => IrColumn[], ident: Ident, normalized: Set<string>, opCx: (o: IrOperator) => OperatorContext): string[] {
  const L: string[] = [];
  const consumers = new Map<string, string[]>();
  const addConsumer = (id: string, call: string): void => {
    const a = consumers.get(id) ?? [];
    a.push(call);
    consumers.set(id, a);
  };
  for (const s of plan.sinks) {
    if (s.changelog === 'append') L.push(`const sink_${ident(s.id)} = b.sink(${q(s.id)});`);
    else L.push(`const sink_${ident(s.id)} = rt.changelogSink(b.sink(${q(s.id)}), ${q(s.changelog)}, ${s.upsertKey ? `[${s.upsertKey.map(q).join(', ')}]` : 'null'});`);
    if (!s.input) continue;
    const row = remap(layout(s.input), s.schema, 'r');
    addConsumer(s.input, `sink_${ident(s.id)}.write(${s.changelog !== 'append' && row !== 'r' ? `rt.withKindOf(${row}, r)` : row});`);
  }
  for (const o of ops) {
    o.inputs.forEach((inp, k) => {
      addConsumer(inp, `${operatorCode(o).push(k, ident(o.id))}(r);`);
    });
  }
  const emitFn = (id: string): string => {
    const calls = consumers.get(id) ?? [];
    return `function emit_${ident(id)}(r) {${calls.length ? '\n  ' + calls.join('\n  ') + '\n' : ' '}}`;
  };
  const graph: string[] = [];
  for (const o of ops) {
    const { lines, graph: entry } = operatorCode(o).instance(o, opCx(o));
    L.push(...lines);
    if (entry !== null) graph.push(entry);
    L.push(emitFn(o.id));
  }
  // Late rows plus late_by_ms, to every sink that declared `ON LATE TO`: a window's input row, or an
  // interval join's late row (its columns with the other side's NULL, then late_side).
  const late: string[] = [];
  for (const o of ops) {
    if (o.op !== 'window_agg' && o.op !== 'interval_join') continue;
    const targets = plan.sinks.filter((s) => s.lateFrom.includes(o.id));
    if (targets.length === 0) continue;
    const inCols: IrColumn[] =
      o.op === 'window_agg' ? layout(o.inputs[0]!) : [...layout(o.id), { name: 'late_side', type: { kind: 'string', nullable: false }, metadataFrom: null }];
    const withLate: IrColumn[] = [...inCols, { name: 'late_by_ms', type: { kind: 'bigint', nullable: false }, metadataFrom: null }];
    const writes = targets.map((s) => `sink_${ident(s.id)}.write(${remap(withLate, s.schema, 'x')});`);
    late.push(`${q(o.id)}: (r, lateBy) => {\n    const x = r.concat(lateBy);\n    ${writes.join('\n    ')}\n  },`);
  }
  L.push('return {');
  const scans = ops.filter((o): o is IrOperator & { op: 'scan' } => o.op === 'scan');
  L.push(`  emit: { ${scans.map((o) => `${q(o.source)}: ${normalized.has(o.source) ? `(r) => norm_${ident(o.id)}.push(r)` : `emit_${ident(o.id)}`}`).join(', ')} },`);
  L.push(`  graph: [\n    ${graph.join(',\n    ')},\n  ],`);
  L.push(`  late: {${late.length ? '\n  ' + late.join('\n  ') + '\n  ' : ' '}},`);
  L.push('};');
  return L.flatMap((l) => l.split('\n'));
}

/** Row expression mapping `from` columns to `to` columns by name (identity when equal). */
function remap(from: IrColumn[], to: IrColumn[], v: string): string {
  if (from.length === to.length && from.every((c, i) => c.name === to[i]!.name)) return v;
  const idx = to.map((c) => columnIndex(from, c.name));
  return `[${idx.map((i) => (i < 0 ? 'null' : `${v}[${i}]`)).join(', ')}]`;
}

export type { SqlType };
