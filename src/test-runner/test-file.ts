// Reads a `pipec test` file (`<name>.pipe.test.yaml`): YAML with source ranges, the shape checked
// with ajv against test-file.schema.json, then every name, column, kind, time and partition checked
// against the compiled plan of the spec it names. Each mistake is a coded diagnostic at its
// file:line (diagnostics/codes/test.ts); the result is the steps the scripted source runs.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parseDocument } from 'yaml';
import schema from './test-file.schema.json' with { type: 'json' };
import { LineMap, type Span } from '../diagnostics/span.ts';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import type { PlanDoc } from '../plan/ir.ts';
import { locate, nodeSpan, pointerSegments, type YamlEnv } from '../syntax/yaml/yaml-nodes.ts';
import { parseDurationText } from '../syntax/sql/time-units.ts';
import { readTimestamp } from '../../targets/runtime/lib/values.ts';
import { opColumnName, type RowKind } from '../../targets/runtime/lib/ops/types.ts';
import type { ScriptRow, ScriptStep } from '../../targets/runtime/lib/testing/scripted.ts';

/** What `expect:` names for the dead-letter output of the run. */
export const DEAD_LETTERS = 'dead_letters';
export const DEAD_LETTER_FIELDS = ['source', 'partition', 'offset', 'reason', 'record'];

export interface Expectation {
  output: string;
  order: 'set' | 'exact';
  rows: Record<string, unknown>[];
  span: Span;
}

export interface TestCase {
  index: number;
  name: string;
  span: Span;
  start: number;
  partitions: Map<string, number>;
  steps: ScriptStep[];
  /** Where each step is written, parallel to `steps` (a target that cannot play one names it). */
  stepSpans: Span[];
  expect: Expectation[];
}

export interface RawTestFile {
  env: YamlEnv;
  /** The spec's path as the compiler is given it (relative to the working directory when the test's was). */
  specPath: string;
  specSpan: Span;
  data: { spec: string; tests: any[] };
}

let compiled: ValidateFunction | null = null;
function validator(): ValidateFunction {
  if (!compiled) compiled = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
  return compiled;
}

/** Parses and shape-checks a test file; null (with diagnostics) when it cannot be read as one. */
export function readTestFile(file: string, text: string, diags: DiagnosticBag): RawTestFile | null {
  const lineMap = new LineMap(text);
  const doc = parseDocument(text, { version: '1.2', schema: 'core', prettyErrors: false, uniqueKeys: true, strict: true });
  const env: YamlEnv = { doc, file, lineMap, text };
  if (doc.errors.length > 0) {
    for (const e of doc.errors) diags.report('yaml-syntax', lineMap.span(file, e.pos[0], e.pos[1]), { detail: e.message.split('\n')[0]! });
    return null;
  }
  const data = doc.toJS() as unknown;
  const validate = validator();
  if (!validate(data)) {
    for (const e of shapeErrors(validate.errors ?? [])) {
      const at = locate(env, doc.contents, pointerSegments(e.instancePath));
      const span = at.node ? nodeSpan(env, at.node) : at.pair ? nodeSpan(env, at.pair.key) : nodeSpan(env, doc.contents);
      diags.report('test-file-shape', span, { detail: shapeText(e) });
    }
    return null;
  }
  const d = data as RawTestFile['data'];
  const specPath = resolve(dirname(file), d.spec);
  const specSpan = nodeSpan(env, locate(env, doc.contents, ['spec']).node);
  if (!existsSync(specPath)) {
    diags.report('test-spec-not-found', specSpan, { path: d.spec });
    return null;
  }
  return { env, specPath, specSpan, data: d };
}

/** One message per place: a step that matches no step form says so once, not once per form. */
function shapeErrors(errors: ErrorObject[]): ErrorObject[] {
  const steps = new Map<string, ErrorObject>();
  const out: ErrorObject[] = [];
  for (const e of errors) {
    const m = /^(\/tests\/\d+\/steps\/\d+)/.exec(e.instancePath);
    if (m) {
      if (!steps.has(m[1]!)) steps.set(m[1]!, { ...e, instancePath: m[1]!, keyword: 'step' });
      continue;
    }
    if (e.keyword === 'oneOf') continue;
    out.push(e);
  }
  return [...out, ...steps.values()];
}

function shapeText(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'the top level' : `'${pointerSegments(e.instancePath).join('.')}'`;
  if (e.keyword === 'step') {
    return `${where} is not a step: use one of rows, watermark, advance_processing_time, idle_partition (mappings) or checkpoint, crash_and_restart, end_of_input`;
  }
  if (e.keyword === 'additionalProperties') return `unknown key '${(e.params as { additionalProperty: string }).additionalProperty}' in ${where}`;
  if (e.keyword === 'required') return `${where} needs '${(e.params as { missingProperty: string }).missingProperty}'`;
  return `${where} ${e.message ?? 'is not valid'}`;
}

const KINDS = new Set(['+I', '-U', '+U', '-D']);
const TIMESTAMP_META = new Set(['commit_ts', 'timestamp']);

/** Checks the file against the plan and turns each test into steps; null entries for tests with errors. */
export function testCases(raw: RawTestFile, plan: PlanDoc, diags: DiagnosticBag): TestCase[] | null {
  const { env } = raw;
  const before = diags.items.length;
  const at = (...segs: (string | number)[]): Span => {
    const l = locate(env, env.doc.contents, segs.map(String));
    return l.node ? nodeSpan(env, l.node) : l.pair ? nodeSpan(env, l.pair.key) : nodeSpan(env, env.doc.contents);
  };
  const keyAt = (...segs: (string | number)[]): Span => {
    const l = locate(env, env.doc.contents, segs.map(String));
    return l.pair ? nodeSpan(env, l.pair.key) : at(...segs);
  };
  const sources = new Map(plan.sources.map((s) => [s.name, s]));
  const sinks = new Map(plan.sinks.map((s) => [s.name, s]));
  const sourceNames = [...sources.keys()];
  const time = (v: string, what: string, span: Span): number => {
    const t = readTimestamp(v);
    if (typeof t === 'number') return t;
    diags.report('test-bad-value', span, { what, value: v, expected: 'a timestamp' });
    return 0;
  };
  const knownSource = (name: string, span: Span): boolean => {
    if (sources.has(name)) return true;
    diags.report('test-unknown-source', span, { name, sources: sourceNames });
    return false;
  };
  const cases: TestCase[] = [];
  raw.data.tests.forEach((t, ti) => {
    const steps: ScriptStep[] = [];
    const used = new Map<string, number>();
    const use = (source: string, p: number): void => void used.set(source, Math.max(used.get(source) ?? 0, p + 1));
    const partSpans: { source: string; p: number; span: Span }[] = [];
    const stepSpans: Span[] = [];
    (t.steps as unknown[]).forEach((s, si) => {
      const before = steps.length;
      readStep(s, si);
      if (steps.length > before) stepSpans.push(at('tests', ti, 'steps', si));
    });
    function readStep(s: unknown, si: number): void {
      const here = (...segs: (string | number)[]): Span => at('tests', ti, 'steps', si, ...segs);
      if (s === 'checkpoint') return void steps.push({ kind: 'checkpoint' });
      if (s === 'crash_and_restart') return void steps.push({ kind: 'crash' });
      if (s === 'end_of_input') return void steps.push({ kind: 'end' });
      const m = s as Record<string, any>;
      if ('rows' in m) {
        if (!knownSource(m.rows, here('rows'))) return;
        const src = sources.get(m.rows)!;
        const p = m.partition ?? 0;
        use(m.rows, p);
        partSpans.push({ source: m.rows, p, span: here('partition') });
        const payload = src.columns.filter((c) => c.metadataFrom === null).map((c) => c.name);
        const rows: ScriptRow[] = [];
        (m.data as Record<string, unknown>[]).forEach((r, ri) => {
          const row: ScriptRow = { values: {} };
          for (const [k, v] of Object.entries(r)) {
            const span = keyAt('tests', ti, 'steps', si, 'data', ri, k);
            if (k === '$op') {
              if (!KINDS.has(String(v))) diags.report('test-bad-kind', at('tests', ti, 'steps', si, 'data', ri, k), { kind: String(v) });
              row.op = String(v) as RowKind;
            } else if (k === '$key') row.key = v;
            else if (k === '$offset') row.offset = Number(v);
            else if (k.startsWith('$')) {
              const name = k.slice(1);
              (row.meta ??= {})[name] = TIMESTAMP_META.has(name) && typeof v === 'string' ? time(v, `'${k}'`, at('tests', ti, 'steps', si, 'data', ri, k)) : v;
            } else if (!payload.includes(k)) diags.report('test-unknown-column', span, { column: k, where: `source '${src.name}'`, columns: payload });
            else row.values[k] = v;
          }
          rows.push(row);
        });
        steps.push({ kind: 'rows', source: m.rows, partition: p, rows });
      } else if ('watermark' in m) {
        if (!knownSource(m.watermark, here('watermark'))) return;
        if (m.partition !== undefined) {
          use(m.watermark, m.partition);
          partSpans.push({ source: m.watermark, p: m.partition, span: here('partition') });
        }
        steps.push({ kind: 'watermark', source: m.watermark, partition: m.partition ?? null, at: time(m.at, "'at' of the watermark step", here('at')) });
      } else if ('advance_processing_time' in m) {
        const d = parseDurationText(m.advance_processing_time);
        if (!d || d.ms < 0) diags.report('test-bad-value', here('advance_processing_time'), { what: 'advance_processing_time', value: m.advance_processing_time, expected: 'a duration' });
        steps.push({ kind: 'advance', ms: d?.ms ?? 0 });
      } else if ('idle_partition' in m) {
        const source = m.source ?? (sourceNames.length === 1 ? sourceNames[0]! : '');
        if (!knownSource(source, m.source ? here('source') : here('idle_partition'))) return;
        use(source, m.idle_partition);
        partSpans.push({ source, p: m.idle_partition, span: here('idle_partition') });
        steps.push({ kind: 'idle', source, partition: m.idle_partition });
      }
    }
    const declared = new Map<string, number>(Object.entries((t.partitions ?? {}) as Record<string, number>));
    for (const name of declared.keys()) knownSource(name, keyAt('tests', ti, 'partitions', name));
    const partitions = new Map(sourceNames.map((n) => [n, declared.get(n) ?? Math.max(1, used.get(n) ?? 1)]));
    for (const u of partSpans) {
      const n = partitions.get(u.source)!;
      if (u.p >= n) diags.report('test-bad-partition', u.span, { source: u.source, partition: u.p, partitions: n });
    }
    const expect: Expectation[] = [];
    for (const [output, e] of Object.entries((t.expect ?? {}) as Record<string, { order?: 'set' | 'exact'; rows: Record<string, unknown>[] }>)) {
      let columns: string[];
      let changelog = false;
      if (output === DEAD_LETTERS) columns = DEAD_LETTER_FIELDS;
      else {
        const sink = sinks.get(output);
        if (!sink) {
          diags.report('test-unknown-sink', keyAt('tests', ti, 'expect', output), { name: output, sinks: [...sinks.keys()] });
          continue;
        }
        changelog = sink.changelog !== 'append';
        columns = sink.schema.map((c) => c.name);
        if (changelog) columns = [opColumnName(sink.schema), ...columns];
      }
      e.rows.forEach((r, ri) => {
        for (const [k, v] of Object.entries(r)) {
          if (!columns.includes(k)) diags.report('test-unknown-column', keyAt('tests', ti, 'expect', output, 'rows', ri, k), { column: k, where: output === DEAD_LETTERS ? 'the dead-letter output' : `sink '${output}'`, columns });
          else if (changelog && k === columns[0] && !KINDS.has(String(v))) diags.report('test-bad-kind', at('tests', ti, 'expect', output, 'rows', ri, k), { kind: String(v) });
        }
      });
      expect.push({ output, order: e.order ?? 'set', rows: e.rows, span: keyAt('tests', ti, 'expect', output) });
    }
    const start = t.start === undefined ? 0 : time(t.start, "the test's 'start'", at('tests', ti, 'start'));
    cases.push({ index: ti, name: t.name, span: at('tests', ti, 'name'), start, partitions, steps, stepSpans, expect });
  });
  return diags.items.length > before && diags.items.slice(before).some((d) => d.severity === 'error') ? null : cases;
}
