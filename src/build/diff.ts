// `pipec diff`: what a change to a spec does to state, sink schemas and generated files.
// Each finding is classified: compatible (deploy as is), needs backfill (state or history must
// be rebuilt from the sources), or breaking (consumers or tables must change first). State is
// judged by the runtime's own resume check over the same per-operator fingerprints, so a change
// called compatible is one `pipec run` resumes from the checkpoint (docs/language-decisions.md).
import type { IrColumn, IrOperator, IrSink, PlanDoc, SqlType } from '../plan/ir.ts';
import { canonicalJson, stateFingerprints } from '../plan/state-fingerprints.ts';
import { liveOperators } from '../plan/graph.ts';
import { compareState, type StatePart, type StateVerdict } from '../../targets/runtime/lib/shared/state-compat.ts';
import { formatSqlType, sameType } from '../types/sql-type.ts';

export type Impact = 'compatible' | 'needs-backfill' | 'breaking';

export interface Finding {
  impact: Impact;
  subject: string;
  message: string;
}

const RANK: Record<Impact, number> = { compatible: 0, 'needs-backfill': 1, breaking: 2 };

export function overallImpact(fs: Finding[]): Impact {
  return fs.reduce<Impact>((acc, f) => (RANK[f.impact] > RANK[acc] ? f.impact : acc), 'compatible');
}

export function diffPlans(oldPlan: PlanDoc, newPlan: PlanDoc): Finding[] {
  return [...diffState(stateVerdict(oldPlan, newPlan)), ...diffStateless(oldPlan, newPlan), ...diffSinks(oldPlan, newPlan)];
}

/**
 * Would `pipec run` of the new plan resume from a checkpoint of the old one? The very check the
 * runtime makes (state-compat.ts) over the very fingerprints it writes (state-fingerprints.ts).
 */
export function stateVerdict(oldPlan: PlanDoc, newPlan: PlanDoc): StateVerdict {
  return compareState(stateFingerprints(oldPlan), stateFingerprints(newPlan));
}

/** State findings, one per part the verdict names: any refusal is needs-backfill, never compatible. */
function diffState(v: StateVerdict): Finding[] {
  const out: Finding[] = [];
  const what = (p: StatePart): string =>
    p.kind === 'source' ? 'its position (where it reads, its format or event time) changed' : p.kind === 'sink' ? 'where or how it writes changed' : 'its state layout (window, keys, aggregates or join sides) changed';
  for (const p of v.changed) out.push({ impact: 'needs-backfill', subject: `${p.kind} ${p.uid}`, message: `${what(p)}: \`pipec run\` refuses the checkpoint; replay the sources (start over)` });
  for (const p of v.added) out.push({ impact: 'needs-backfill', subject: `${p.kind} ${p.uid}`, message: 'new: it has no state in the checkpoint, so `pipec run` refuses it; replay the sources (start over)' });
  // New sinks resume too (empty); diffSinks lists them.
  for (const p of v.dropped) out.push({ impact: 'compatible', subject: `${p.kind} ${p.uid}`, message: 'removed: its state in the checkpoint is dropped on resume' });
  return out;
}

/**
 * Filters and projections (stateless): compatible, since no state depends on them, but listed — the
 * rows they let through or compute change from the checkpoint on. Named by owner: a sink's
 * `AS SELECT ... WHERE` or a view's.
 */
function diffStateless(a: PlanDoc, b: PlanDoc): Finding[] {
  const out: Finding[] = [];
  const body = (o: IrOperator): string | null =>
    o.op === 'filter' ? canonicalJson(o.predicate) : o.op === 'project' ? canonicalJson(o.exprs.map((x) => [x.name, x.expr])) : null;
  const sinkNames = new Set([...a.sinks, ...b.sinks].map((s) => s.name));
  const subjectOf = (id: string): string => {
    // Operator ids are `<owner>/<role>` (`big/filter`, `all_events/u1/project`): the owner is the longest prefix that names a sink or view.
    const owners = [...sinkNames, ...a.views.map((v) => v.name), ...b.views.map((v) => v.name)].filter((n) => id.startsWith(n + '/'));
    const owner = owners.sort((x, y) => y.length - x.length)[0] ?? id.split('/')[0]!;
    return `${sinkNames.has(owner) ? 'sink' : 'view'} ${owner}`;
  };
  const before = new Map(liveOperators(a).map((o) => [o.id, o]));
  const after = new Map(liveOperators(b).map((o) => [o.id, o]));
  for (const kind of ['filter', 'project'] as const) {
    const noun = kind === 'filter' ? 'filter (WHERE)' : 'projection (SELECT list)';
    for (const [id, o] of after) {
      if (o.op !== kind) continue;
      const old = before.get(id);
      if (!old || old.op !== kind) out.push({ impact: 'compatible', subject: subjectOf(id), message: `${noun} added: applies to rows from the checkpoint on` });
      else if (body(old) !== body(o)) out.push({ impact: 'compatible', subject: subjectOf(id), message: `${noun} changed: applies to rows from the checkpoint on` });
    }
    for (const [id, o] of before) if (o.op === kind && after.get(id)?.op !== kind) out.push({ impact: 'compatible', subject: subjectOf(id), message: `${noun} removed: applies to rows from the checkpoint on` });
  }
  return out;
}

function diffSinks(a: PlanDoc, b: PlanDoc): Finding[] {
  const out: Finding[] = [];
  const bySink = new Map(a.sinks.map((s) => [s.name, s]));
  for (const s of b.sinks) {
    const old = bySink.get(s.name);
    if (!old) {
      out.push({ impact: 'compatible', subject: `sink ${s.name}`, message: `new ${s.connector} sink: starts empty and receives the rows from the checkpoint on` });
      continue;
    }
    if (old.connector !== s.connector || destination(old) !== destination(s)) {
      out.push({ impact: 'breaking', subject: `sink ${s.name}`, message: `destination changed from ${old.connector} ${destination(old)} to ${s.connector} ${destination(s)}` });
      continue;
    }
    out.push(...diffColumns(s.name, old.schema, s.schema));
    if (old.changelog !== s.changelog) out.push({ impact: 'breaking', subject: `sink ${s.name}`, message: `changelog mode changed from ${old.changelog} to ${s.changelog}` });
    const partitionSpec = (x: IrSink): string | undefined => (x.connector === 'iceberg' ? JSON.stringify(x.iceberg.partitionBy) : undefined);
    if (partitionSpec(old) !== partitionSpec(s))
      out.push({ impact: 'compatible', subject: `sink ${s.name}`, message: 'Iceberg partition spec evolves: new data uses the new spec, old files keep theirs' });
  }
  for (const s of a.sinks) if (!b.sinks.some((n) => n.name === s.name)) out.push({ impact: 'breaking', subject: `sink ${s.name}`, message: 'sink removed: its consumers stop receiving data' });
  return out;
}

function destination(s: IrSink): string {
  switch (s.connector) {
    case 'iceberg':
      return s.iceberg.table;
    case 'clickhouse':
      return s.clickhouse.table;
    case 'kafka':
      return s.kafka.topic;
    case 'file':
      return s.file.path;
    default:
      return s.connector;
  }
}

function diffColumns(sink: string, before: IrColumn[], after: IrColumn[]): Finding[] {
  const out: Finding[] = [];
  const subject = `sink ${sink}`;
  for (const col of after) {
    const old = before.find((c) => c.name === col.name);
    if (!old) {
      out.push(
        col.type.nullable
          ? { impact: 'needs-backfill', subject, message: `column ${col.name} ${formatSqlType(col.type)} added: existing rows read it as NULL until backfilled` }
          : { impact: 'breaking', subject, message: `column ${col.name} ${formatSqlType(col.type)} added as NOT NULL: existing rows have no value` },
      );
    } else if (!sameType(old.type, col.type)) {
      out.push(
        isWidening(old.type, col.type)
          ? { impact: 'compatible', subject, message: `column ${col.name} widened from ${formatSqlType(old.type)} to ${formatSqlType(col.type)}` }
          : { impact: 'breaking', subject, message: `column ${col.name} changed from ${formatSqlType(old.type)} to ${formatSqlType(col.type)}` },
      );
    }
  }
  for (const col of before) if (!after.some((c) => c.name === col.name)) out.push({ impact: 'breaking', subject, message: `column ${col.name} removed: readers that select it break` });
  return out;
}

/** Type changes every sink format accepts without rewriting data (Iceberg's promotion rules). */
function isWidening(from: SqlType, to: SqlType): boolean {
  if (!from.nullable && to.nullable && sameType(from, to, true)) return true;
  if (from.nullable && !to.nullable) return false;
  if (from.kind === 'int' && to.kind === 'bigint') return true;
  if (from.kind === 'float' && to.kind === 'double') return true;
  if (from.kind === 'decimal' && to.kind === 'decimal') return from.scale === to.scale && to.precision >= from.precision;
  return false;
}
export { refusalText } from '../../targets/runtime/lib/shared/state-compat.ts';
