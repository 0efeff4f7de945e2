// Checks a parsed `.pipe.yaml` document against grammar/pipe-yaml.schema.json and turns each ajv
// error into a coded diagnostic at the YAML node (or key) it is about. The validator is ajv's,
// compiled at build time (schema-validator.gen.ts, scripts/yaml-validator.mjs): ajv itself is
// not loaded at run time. Open mappings (sources, views, sinks, catalogs: any plain-valued key
// is a WITH option) get a "did you mean" pass of their own.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { validate as generatedValidator } from './schema-validator.gen.ts';
import schema from '../../../grammar/pipe-yaml.schema.json' with { type: 'json' };
import type { Span } from '../../diagnostics/span.ts';
import type { FrontEndContext } from '../front-end.ts';
import { isMap, isScalar, type Pair } from 'yaml';
import { closest, hasUnclosedBracket } from './suggest.ts';
import { describePlace, describeValue, locate, nodeSpan, pointerSegments, type YamlEnv } from './yaml-nodes.ts';

type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  'x-expected'?: string;
  [k: string]: unknown;
};

const defs = (schema as { definitions: Record<string, JsonSchema> }).definitions;
const keysOf = (s: JsonSchema | undefined): string[] => Object.keys(s?.properties ?? {});

/** Structural keys of the mappings whose other keys are options; read from the schema itself. */
export const STRUCTURAL_KEYS = {
  catalog: keysOf(defs.catalog),
  source: keysOf(defs.source),
  view: keysOf(defs.view),
  sink: keysOf(defs.sink),
} as const;

/**
 * Option names that look like a typo of a structural key but are real options (so `format`
 * is never "did you mean from"). The checker validates options per connector.
 */
const KNOWN_OPTIONS = new Set([
  'connector', 'topic', 'brokers', 'group_id', 'format', 'schema', 'key', 'startup', 'idle_timeout', 'dsn',
  'table', 'slot', 'publication', 'snapshot', 'heartbeat', 'path', 'follow', 'allow_empty', 'rows_per_second', 'total_rows',
  'seed', 'url', 'order_by', 'catalog', 'partition_by', 'sort_by', 'format_version', 'target_file_size',
  'commit_interval', 'write_mode', 'type', 'uri', 'warehouse', 'state_ttl', 'checkpoint_interval', 'acks',
]);

const validator = (): ValidateFunction => generatedValidator as ValidateFunction;

/** Reports every schema violation of `data` (the document as plain JS); returns true when clean. */
export function validatePipeYaml(env: YamlEnv, data: unknown, ctx: FrontEndContext): boolean {
  const suppressed = reportOpenMappingTypos(env, data, ctx);
  const validate = validator();
  if (validate(data)) return suppressed.length === 0;
  const errors = (validate.errors ?? []).filter((e) => !suppressed.some((p) => e.instancePath === p || e.instancePath.startsWith(`${p}/`)));
  // A misspelt required key shows up twice (unknown 'colum', missing 'column'): keep the first.
  const typoFor = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const allowed = keysOf(e.parentSchema as JsonSchema);
    const s = closest(String((e.params as { additionalProperty: string }).additionalProperty), allowed);
    if (s) typoFor.add(`${e.instancePath}/${s}`);
  }
  for (const e of errors) {
    if (e.keyword === 'required' && typoFor.has(`${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`)) continue;
    reportAjvError(env, e, ctx);
  }
  return false;
}

function reportAjvError(env: YamlEnv, e: ErrorObject, ctx: FrontEndContext): void {
  const segs = pointerSegments(e.instancePath);
  const where = describePlace(segs);
  const at = locate(env, env.doc.contents, segs);
  // An empty value (`topic:`) has a zero-width node after the colon; point at its key instead.
  const empty = at.node && isScalar(at.node) && at.node.value === null && at.node.range && at.node.range[0] === at.node.range[1];
  const valueSpan = (): Span =>
    at.node && at.node.range && !empty ? nodeSpan(env, at.node) : at.pair ? nodeSpan(env, at.pair.key) : nodeSpan(env, env.doc.contents);
  const keySpan = (): Span => (at.pair ? nodeSpan(env, at.pair.key) : valueSpan());
  const parent = (e.parentSchema ?? {}) as JsonSchema;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const inner = locate(env, env.doc.contents, [...segs, key]);
      const cut = flowCommaCut(env, at.node, inner.pair);
      if (cut !== null) {
        ctx.diagnostics.report('yaml-unquoted-comma', cut.span, { text: cut.text });
        return;
      }
      const allowed = keysOf(parent);
      ctx.diagnostics.report('yaml-unknown-key', inner.pair ? nodeSpan(env, inner.pair.key) : valueSpan(), {
        key,
        where,
        suggestion: closest(key, allowed),
        allowed,
      });
      return;
    }
    case 'required':
      ctx.diagnostics.report('yaml-missing-key', keySpan(), { key: (e.params as { missingProperty: string }).missingProperty, where });
      return;
    case 'type':
      ctx.diagnostics.report('yaml-wrong-type', valueSpan(), {
        where: capitalize(where),
        expected: parent['x-expected'] ?? `of type ${String((e.params as { type: unknown }).type)}`,
        found: describeValue(e.data),
      });
      return;
    case 'enum': {
      const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
      const value = typeof e.data === 'object' ? describeValue(e.data) : String(e.data);
      ctx.diagnostics.report('yaml-bad-value', valueSpan(), { where: capitalize(where), value, allowed, suggestion: closest(value, allowed) });
      return;
    }
    case 'if':
      // The failing branch (then/else) reports its own, more precise error.
      return;
    case 'minItems':
      ctx.diagnostics.report('yaml-invalid', valueSpan(), { where: capitalize(where), detail: `needs at least ${String((e.params as { limit: number }).limit)} item` });
      return;
    case 'maxProperties':
      ctx.diagnostics.report('yaml-invalid', valueSpan(), { where: capitalize(where), detail: 'holds more than one action; write one action per list item' });
      return;
    case 'minProperties':
      ctx.diagnostics.report('yaml-invalid', valueSpan(), { where: capitalize(where), detail: 'names no action (rewrite_data_files, rewrite_delete_files, expire_snapshots, remove_orphan_files)' });
      return;
    default:
      ctx.diagnostics.report('yaml-invalid', valueSpan(), { where: capitalize(where), detail: e.message ?? e.keyword });
  }
}

/**
 * `{ type: DECIMAL(12, 2) }`: the stray key `2)` follows a plain value with an open bracket in
 * the same flow mapping. Returns the value's span and the text the user meant.
 */
function flowCommaCut(env: YamlEnv, map: unknown, pair: Pair<unknown, unknown> | null): { span: Span; text: string } | null {
  if (!pair || !isMap(map) || !map.flow) return null;
  const i = map.items.indexOf(pair);
  const prev = i > 0 ? map.items[i - 1] : undefined;
  const v = prev?.value;
  if (!isScalar(v) || v.type !== 'PLAIN' || !hasUnclosedBracket(v.value) || !v.range || !isScalar(pair.key) || !pair.key.range) return null;
  const start = v.range[0];
  const end = pair.key.range[1];
  return { span: env.lineMap.span(env.file, start, end), text: env.text.slice(start, end) };
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalarValue = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * In open mappings an unknown key is an option, so ajv can only say "must be a plain value".
 * A key whose value is a mapping or list, or that is one typo away from a structural key,
 * is reported here as unknown (with a suggestion); ajv's errors beneath it are dropped.
 * Returns the JSON pointers of the keys reported.
 */
function reportOpenMappingTypos(env: YamlEnv, data: unknown, ctx: FrontEndContext): string[] {
  const reported: string[] = [];
  const check = (obj: unknown, segs: string[], structural: readonly string[]): void => {
    if (!isPlainObject(obj)) return;
    for (const [key, value] of Object.entries(obj)) {
      if (structural.includes(key)) continue;
      const suggestion = KNOWN_OPTIONS.has(key) ? null : closest(key, structural);
      if (isScalarValue(value) && suggestion === null) continue;
      if (value === null && suggestion === null) continue;
      const at = locate(env, env.doc.contents, [...segs, key]);
      const span = at.pair ? nodeSpan(env, at.pair.key) : nodeSpan(env, env.doc.contents);
      ctx.diagnostics.report('yaml-unknown-key', span, { key, where: describePlace(segs), suggestion, allowed: [...structural] });
      reported.push(`/${[...segs, key].map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`);
    }
  };
  if (!isPlainObject(data)) return reported;
  const sections: [string, readonly string[]][] = [
    ['catalogs', STRUCTURAL_KEYS.catalog],
    ['sources', STRUCTURAL_KEYS.source],
    ['views', STRUCTURAL_KEYS.view],
    ['sinks', STRUCTURAL_KEYS.sink],
  ];
  for (const [section, structural] of sections) {
    const entries = data[section];
    if (!isPlainObject(entries)) continue;
    for (const [name, body] of Object.entries(entries)) check(body, [section, name], structural);
  }
  return reported;
}
