// `pipec diff`: what a change to a spec does to state, sink schemas and generated files.
// Each finding is classified: compatible (deploy as is), needs backfill (state or history must
// be rebuilt from the sources), or breaking (consumers or tables must change first).
import type { IrColumn, IrOperator, IrSink, PlanDoc, SqlType } from '../plan/ir.ts';
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
  return [...diffState(oldPlan, newPlan), ...diffSinks(oldPlan, newPlan)];
}

/** Stateful operators, compared per view: a changed window, key or aggregate invalidates state. */
function diffState(a: PlanDoc, b: PlanDoc): Finding[] {
  const out: Finding[] = [];
  const stateOf = (p: PlanDoc): Map<string, string> => {
    const m = new Map<string, string>();
    for (const v of p.views) {
      const chain = operatorChain(p, v.operator).filter((op) => op.stateBound.kind !== 'stateless');
      m.set(v.name, JSON.stringify(chain.map(stateSignature)));
    }
    return m;
  };
  const sa = stateOf(a);
  const sb = stateOf(b);
  for (const [view, sig] of sb) {
    const before = sa.get(view);
    if (before === undefined) out.push({ impact: 'needs-backfill', subject: `view ${view}`, message: 'new view: its state starts empty unless the sources are replayed' });
    else if (before !== sig && sig !== '[]') out.push({ impact: 'needs-backfill', subject: `view ${view}`, message: 'window, keys or aggregates changed: checkpointed state cannot be reused; replay the sources' });
  }
  for (const view of sa.keys()) if (!sb.has(view)) out.push({ impact: 'compatible', subject: `view ${view}`, message: 'view removed: its state is dropped' });
  return out;
}

function stateSignature(op: IrOperator): unknown {
  switch (op.op) {
    case 'window_agg':
      return { op: op.op, window: op.window, keys: op.groupKeys, aggs: op.aggregates, lateness: op.allowedLatenessMs };
    case 'group_agg':
      return { op: op.op, keys: op.groupKeys, aggs: op.aggregates };
    case 'interval_join':
      return { op: op.op, l: op.leftKeys, r: op.rightKeys, lo: op.lowerMs, hi: op.upperMs };
    case 'temporal_join':
      return { op: op.op, l: op.leftKeys, r: op.rightKeys };
    default:
      return { op: op.op };
  }
}

function operatorChain(p: PlanDoc, id: string): IrOperator[] {
  const byId = new Map(p.operators.map((o) => [o.id, o]));
  const seen = new Set<string>();
  const out: IrOperator[] = [];
  const visit = (x: string): void => {
    if (seen.has(x)) return;
    seen.add(x);
    const op = byId.get(x);
    if (!op) return;
    op.inputs.forEach(visit);
    out.push(op);
  };
  visit(id);
  return out;
}

function diffSinks(a: PlanDoc, b: PlanDoc): Finding[] {
  const out: Finding[] = [];
  const bySink = new Map(a.sinks.map((s) => [s.name, s]));
  for (const s of b.sinks) {
    const old = bySink.get(s.name);
    if (!old) {
      out.push({ impact: 'compatible', subject: `sink ${s.name}`, message: `new ${s.connector} sink` });
      continue;
    }
    if (old.connector !== s.connector || destination(old) !== destination(s)) {
      out.push({ impact: 'breaking', subject: `sink ${s.name}`, message: `destination changed from ${old.connector} ${destination(old)} to ${s.connector} ${destination(s)}` });
      continue;
    }
    out.push(...diffColumns(s.name, old.schema, s.schema));
    if (old.changelog !== s.changelog) out.push({ impact: 'breaking', subject: `sink ${s.name}`, message: `changelog mode changed from ${old.changelog} to ${s.changelog}` });
    if (JSON.stringify(old.iceberg?.partitionBy) !== JSON.stringify(s.iceberg?.partitionBy))
      out.push({ impact: 'compatible', subject: `sink ${s.name}`, message: 'Iceberg partition spec evolves: new data uses the new spec, old files keep theirs' });
  }
  for (const s of a.sinks) if (!b.sinks.some((n) => n.name === s.name)) out.push({ impact: 'breaking', subject: `sink ${s.name}`, message: 'sink removed: its consumers stop receiving data' });
  return out;
}

function destination(s: IrSink): string {
  return s.iceberg?.table ?? s.clickhouse?.table ?? s.kafka?.topic ?? s.file?.path ?? s.connector;
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
