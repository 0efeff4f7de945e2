// `pipec plan --physical` in text, json and dot. Connector configs print every resolved field
// (delivery, acks, commit intervals, dedup mode...); `${VAR}` templates print as written and a
// secret written inline (a password, a DSN's password) prints as `***`.
import type { SinkConfig, SourceConfig } from '../../../targets/runtime/lib/config/config-types.ts';
import { displayText } from '../../util/unsafe-text.ts';
import { formatDuration } from '../print/format.ts';
import { stateBoundText } from '../print/expr.ts';
import type { CommitPoint, PhysicalCatalog, PhysicalPlan, PlanValue, SinkTable, SourceTopic } from './types.ts';

/** Config fields that hold secrets: shown only as their `${VAR}` template. */
const SECRET_FIELDS = new Set(['password']);
/** Fields that may embed a password (DSNs, URLs): the password part is masked. */
const URL_FIELDS = new Set(['dsn', 'url']);
/** Catalog options that hold secrets (Iceberg REST token and credential, a JDBC password). */
const SECRET_CATALOG_OPTIONS = new Set(['token', 'credential', 'password']);
/** Fields in milliseconds, shown as durations. */
const isMs = (k: string): boolean => k.endsWith('Ms');

const ENV_DEFAULT: Record<string, string> = {
  'kafka.brokers': 'PIPEC_KAFKA_BROKERS',
  'clickhouse.url': 'PIPEC_CLICKHOUSE_URL',
  'clickhouse.user': 'PIPEC_CLICKHOUSE_USER',
  'clickhouse.password': 'PIPEC_CLICKHOUSE_PASSWORD',
  'postgres-cdc.dsn': 'PIPEC_PG_URL',
};

function maskUrl(text: string): string {
  return text.replace(/(\/\/[^:/@\s]*:)([^@\s]*)@/g, (_m, a: string, pw: string) => (pw.startsWith('${') ? `${a}${pw}@` : `${a}***@`)).replace(/(password\s*=\s*)([^\s$][^\s]*)/gi, '$1***');
}

/** A nested record (datagen's per-column settings) as `{a: {k=v, ...}, ...}`, keys as stored (sorted). */
function nestedText(v: Record<string, unknown>): string {
  const inner = Object.entries(v).map(([k, x]) => (x !== null && typeof x === 'object' ? `${k}: ${nestedText(x as Record<string, unknown>)}` : `${k}=${String(x)}`));
  return `{${inner.join(', ')}}`;
}

/** Config fields in a stable order, values shown safely. */
export function shownConfig(c: SourceConfig | SinkConfig): [string, string][] {
  const out: [string, string][] = [];
  for (const k of Object.keys(c).sort()) {
    if (k === 'connector' || k === 'templated') continue;
    const v = (c as unknown as Record<string, unknown>)[k];
    const templated = c.templated.includes(k);
    let text: string;
    if (v === null) text = ENV_DEFAULT[`${c.connector}.${k}`] !== undefined ? `\${${ENV_DEFAULT[`${c.connector}.${k}`]}}` : 'none';
    else if (SECRET_FIELDS.has(k) && !templated) text = '***';
    else if (typeof v === 'string' && URL_FIELDS.has(k)) text = maskUrl(v);
    else if (typeof v === 'number' && isMs(k)) text = formatDuration(v);
    else if (Array.isArray(v)) text = `[${v.join(', ')}]`;
    else if (typeof v === 'object') text = nestedText(v as Record<string, unknown>);
    // A value with commas (an ORDER BY list) in parentheses, so it reads apart from the next field.
    else if (typeof v === 'string' && v.includes(',')) text = `(${v})`;
    else text = String(v);
    out.push([k, text]);
  }
  return out;
}

export function commitText(c: CommitPoint): string {
  return c.kind === 'flush' ? 'as flushed (a checkpoint waits for writes)' : c.kind === 'checkpoint' ? 'after each durable checkpoint (two-phase)' : `at the first checkpoint after ${formatDuration(c.intervalMs)}`;
}

/** A ClickHouse sink's table and layout (an Iceberg sink's layout is in its config). */
function clickhouseTableText(t: Extract<SinkTable, { kind: 'clickhouse' }>): string {
  const parts = [`${t.database}.${t.name}`, `order by (${t.orderBy.join(', ')})`];
  if (t.partitionBy !== null) parts.push(`partition by ${t.partitionBy}`);
  if (t.ttl !== null) parts.push(`ttl ${t.ttl}`);
  return parts.join(', ');
}

/** A catalog option as shown: a secret written inline is `***`, a URL's password is masked, templates print as written. */
function shownValue(key: string, v: PlanValue): PlanValue {
  if (SECRET_CATALOG_OPTIONS.has(key) && v.envVars.length === 0) return { ...v, text: '***' };
  return { ...v, text: maskUrl(v.text) };
}

function shownCatalog(c: PhysicalCatalog): PhysicalCatalog {
  return { ...c, options: Object.fromEntries(Object.entries(c.options).map(([k, v]) => [k, shownValue(k, v)])) };
}

function shownTopic(t: SourceTopic | null): SourceTopic | null {
  return t && { ...t, brokers: shownValue('brokers', t.brokers), registryUrl: shownValue('registryUrl', t.registryUrl) };
}

const configLine = (c: SourceConfig | SinkConfig): string => shownConfig(c).map(([k, v]) => `${k}=${v}`).join(', ');

export function printPhysicalText(p: PhysicalPlan): string {
  const scale = p.pipeline.scaleOut === 'partitions' ? ', scaled out by partitions' : '';
  const dead = p.pipeline.deadLetterPath !== null ? `, dead letters to ${displayText(p.pipeline.deadLetterPath)}` : '';
  const L: string[] = [`physical plan v${p.physicalVersion} of pipeline ${displayText(p.pipeline.name)}, checkpoint every ${formatDuration(p.pipeline.checkpointIntervalMs)}${scale}${dead}`, ''];
  for (const s of p.sources) {
    L.push(`source ${displayText(s.name)} (${s.connector})${s.live ? '' : ' [not read: feeds no sink]'}`);
    L.push(`  config: ${displayText(configLine(s.config))}`);
    if (s.format) L.push(`  format: ${s.format.kind}${s.format.wire ? `, ${s.format.wire} wire` : ''}${s.format.schema !== null ? `, schema ${displayText(s.format.schema)}` : ''}`);
    L.push(`  row: ${displayText(s.rowColumns.join(', '))}`);
    if (s.watermark) L.push(`  watermark: ${displayText(s.watermark.column)} - ${formatDuration(s.watermark.delayMs)}, idle after ${s.watermark.idleTimeoutMs === null ? 'never' : formatDuration(s.watermark.idleTimeoutMs)}`);
    if (s.normalize) L.push(`  changelog normalize: last row per (${displayText(s.normalize.key.join(', '))})`);
    if (s.versionClock) L.push(`  version clock: ${displayText(s.versionClock.column)} from metadata '${s.versionClock.meta}'`);
  }
  L.push('');
  for (const o of p.operators) {
    const parts = [`${o.op} ${displayText(o.id)}`, o.inputs.length ? `← ${displayText(o.inputs.join(', '))}` : '', o.live ? '' : '[dead: feeds no sink]'].filter(Boolean);
    L.push(parts.join(' '));
    const d: string[] = [`changelog ${o.changelog}`, `state ${stateBoundText(o.stateBound)}`];
    if (o.partitionKey) d.push(`keyed by (${displayText(o.partitionKey.join(', '))})`);
    if (o.paneMs !== null) d.push(`panes of ${formatDuration(o.paneMs)}`);
    if (o.updateBefore) d.push(`emits -U before +U`);
    d.push(`watermark from ${o.watermarkFrom.length ? displayText(o.watermarkFrom.join(', ')) : 'none'}`);
    L.push(`  ${d.join('; ')}`);
  }
  L.push('');
  for (const s of p.sinks) {
    const from = [s.input ? `← ${displayText(s.input)}` : '', s.lateFrom.length ? `late rows of ${displayText(s.lateFrom.join(', '))}` : ''].filter(Boolean).join(', ');
    L.push(`sink ${displayText(s.name)} (${s.connector}) ${from} [${s.changelog}${s.upsertKey ? ` by (${displayText(s.upsertKey.join(', '))})` : ''}]`);
    L.push(`  config: ${displayText(configLine(s.config))}`);
    L.push(`  commits: ${commitText(s.commit)}`);
    if (s.table?.kind === 'clickhouse') L.push(`  table: ${displayText(clickhouseTableText(s.table))}`);
  }
  if (p.catalogs.length || p.compactions.length) L.push('');
  for (const c of p.catalogs.map(shownCatalog)) {
    L.push(`catalog ${displayText(c.name)} (${c.type}): ${displayText(Object.keys(c.options).sort().filter((k) => k !== 'type').map((k) => `${k}=${c.options[k]!.text}`).join(', '))}`);
  }
  for (const c of p.compactions) {
    L.push(`compaction ${displayText(c.name)} of sink ${displayText(c.sink)}: ${c.actions.map((a) => a.kind).join(', ')}; ${c.scheduleMs === null ? 'on demand' : `every ${formatDuration(c.scheduleMs)}`}`);
  }
  if (p.unsupported.length) {
    L.push('');
    for (const u of p.unsupported) L.push(`cannot lower: ${displayText(u.what)} (${displayText(u.name)})`);
  }
  return L.join('\n') + '\n';
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) if ((v as Record<string, unknown>)[k] !== undefined) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** The physical plan as JSON, keys sorted; secrets written inline are masked as in the text form. */
export function printPhysicalJson(p: PhysicalPlan): string {
  const mask = (c: SourceConfig | SinkConfig): SourceConfig | SinkConfig => {
    const o: Record<string, unknown> = { ...c };
    for (const k of Object.keys(o)) {
      if (SECRET_FIELDS.has(k) && typeof o[k] === 'string' && !c.templated.includes(k)) o[k] = '***';
      if (URL_FIELDS.has(k) && typeof o[k] === 'string') o[k] = maskUrl(o[k] as string);
    }
    return o as unknown as SourceConfig | SinkConfig;
  };
  const shown = {
    ...p,
    sources: p.sources.map((s) => ({ ...s, config: mask(s.config), topic: shownTopic(s.topic) })),
    sinks: p.sinks.map((s) => ({ ...s, config: mask(s.config) })),
    catalogs: p.catalogs.map(shownCatalog),
  };
  return JSON.stringify(sortKeys(shown), null, 2) + '\n';
}

function q(text: string): string {
  const lines = text.split('\n').map((l) => displayText(l).replace(/\\/g, '\\\\').replace(/"/g, '\\"'));
  return `"${lines.join('\\n')}"`;
}

export function printPhysicalDot(p: PhysicalPlan): string {
  const L = [`digraph ${q(p.pipeline.name)} {`, '  rankdir=LR;', '  node [fontname="Helvetica", fontsize=10];'];
  for (const s of p.sources) {
    const label = [`source ${s.name}`, ...shownConfig(s.config).map(([k, v]) => `${k}=${v}`), s.normalize ? `normalize by (${s.normalize.key.join(', ')})` : ''].filter(Boolean).join('\n');
    L.push(`  ${q(`source:${s.id}`)} [shape=cylinder${s.live ? '' : ', style=dashed'}, label=${q(label)}];`);
  }
  for (const o of p.operators) {
    const label = [`${o.op} ${o.id}`, o.partitionKey ? `keyed by (${o.partitionKey.join(', ')})` : '', o.paneMs !== null ? `panes of ${formatDuration(o.paneMs)}` : '', o.updateBefore ? 'emits -U' : ''].filter(Boolean).join('\n');
    L.push(`  ${q(`op:${o.id}`)} [shape=box${o.live ? '' : ', style=dashed'}, label=${q(label)}];`);
    for (const i of o.inputs) L.push(`  ${q(`op:${i}`)} -> ${q(`op:${o.id}`)};`);
    if (o.source !== null) L.push(`  ${q(`source:${o.source}`)} -> ${q(`op:${o.id}`)};`);
  }
  for (const s of p.sinks) {
    const label = [`sink ${s.name}`, ...shownConfig(s.config).map(([k, v]) => `${k}=${v}`), `commits ${commitText(s.commit)}`].join('\n');
    L.push(`  ${q(`sink:${s.id}`)} [shape=note, label=${q(label)}];`);
    if (s.input) L.push(`  ${q(`op:${s.input}`)} -> ${q(`sink:${s.id}`)};`);
    for (const l of s.lateFrom) L.push(`  ${q(`op:${l}`)} -> ${q(`sink:${s.id}`)} [style=dashed, label="late"];`);
  }
  L.push('}');
  return L.join('\n') + '\n';
}
