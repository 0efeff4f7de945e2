// CDC rows on the ClickHouse case: a `postgres-cdc` source's changes written as the Debezium
// messages its DDL reads (`<source>__debezium`, JSON converter, decimal.handling.mode=string,
// time.precision.mode=adaptive, `source.lsn` as the version), and the check that a temporal join
// gives the runtime's rows there. ClickHouse joins each left row with the right side's latest
// version at insert time (clickhouse-temporal-join-latest) and only on left inserts
// (clickhouse-mv-join-left-only); that equals the runtime's version-at-event-time join exactly
// when the test inserts every change before the left rows it is valid for and after those it
// is not, and the input ends (the runtime holds left rows until the watermark passes them).
import type { IrSource, PlanDoc } from '../plan/ir.ts';
import type { SqlType } from '../types/sql-type.ts';
import { readTimestamp } from '../../targets/runtime/lib/values.ts';
import type { ScriptRow, ScriptStep } from '../../targets/runtime/lib/testing/scripted.ts';

/** One Debezium change event per test change; a -U directly followed by its +U is one update. */
export function debeziumMessages(src: IrSource, rows: ScriptRow[], nextLsn: () => number): { message: string; row: ScriptRow }[] {
  const out: { message: string; row: ScriptRow }[] = [];
  const payload = src.columns.filter((c) => c.metadataFrom === null);
  const values = (r: ScriptRow): Record<string, unknown> => Object.fromEntries(payload.filter((c) => c.name in r.values).map((c) => [c.name, debeziumValue(r.values[c.name], c.type)]));
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const commit = typeof r.meta?.['commit_ts'] === 'number' ? r.meta['commit_ts'] : 0;
    const event = (before: ScriptRow | null, after: ScriptRow | null, op: string): string =>
      JSON.stringify({ before: before && values(before), after: after && values(after), source: { lsn: nextLsn(), ts_ms: commit }, op, ts_ms: commit });
    const next = rows[i + 1];
    if (r.op === '-U' && next?.op === '+U') {
      out.push({ message: event(r, next, 'u'), row: next });
      i++;
    } else if (r.op === '-U' || r.op === '-D') out.push({ message: event(r, null, 'd'), row: r });
    else if (r.op === '+U') out.push({ message: event(null, r, 'u'), row: r });
    else out.push({ message: event(null, r, 'c'), row: r });
  }
  return out;
}

/** A value as Debezium's JSON converter writes it for the column's type (what the DDL's extraction reads). */
function debeziumValue(v: unknown, t: SqlType): unknown {
  if (v === null || v === undefined) return null;
  if (t.kind === 'decimal') return String(v);
  if (t.kind !== 'timestamp' && t.kind !== 'date') return v;
  const ms = readTimestamp(v);
  if (typeof ms !== 'number') return v;
  if (t.kind !== 'timestamp') return Math.floor(ms / 86_400_000);
  if (t.ltz) return new Date(ms).toISOString();
  return t.precision <= 3 ? ms : ms * 1000;
}

/** The source a single-input chain of operators reads (null through a union or a join). */
function scanSource(plan: PlanDoc, opId: string): IrSource | null {
  for (let op = plan.operators.find((o) => o.id === opId); op; op = plan.operators.find((o) => o.id === op!.inputs[0])) {
    if (op.op === 'scan') return plan.sources.find((s) => s.id === op!.source) ?? null;
    if (op.inputs.length !== 1) return null;
  }
  return null;
}

/**
 * Why this case's temporal joins would give other rows on ClickHouse than on the runtime, with the
 * step to name (null: the whole test), or null when they give the same rows.
 */
export function temporalJoinOutOfOrder(plan: PlanDoc, steps: ScriptStep[]): { step: number | null; why: string } | null {
  if (plan.operators.some((o) => o.op === 'interval_join')) return { step: null, why: 'an interval join in ClickHouse matches only right rows inserted before their left partner (clickhouse-mv-join-left-only)' };
  if (!steps.some((s) => s.kind === 'end')) {
    return { step: null, why: "without end_of_input the runtime's temporal join still holds the left rows its watermark has not passed, while ClickHouse joins each at insert (clickhouse-temporal-join-latest)" };
  }
  for (const j of plan.operators) {
    if (j.op !== 'temporal_join') continue;
    const left = scanSource(plan, j.inputs[0]!);
    const right = scanSource(plan, j.inputs[1]!);
    if (!left?.watermark || !right || right.watermark) return { step: null, why: 'the runner models a temporal join only from a source with a WATERMARK against a CDC source versioned by commit time' };
    // Version time of a change: its commit time; a change without one (a snapshot row) is valid since ever.
    const changes: { t: number; step: number }[] = [];
    const lefts: { t: number; step: number }[] = [];
    steps.forEach((s, i) => {
      if (s.kind !== 'rows') return;
      if (s.source === right.name) for (const r of s.rows) changes.push({ t: typeof r.meta?.['commit_ts'] === 'number' ? r.meta['commit_ts'] : Number.NEGATIVE_INFINITY, step: i });
      if (s.source === left.name) {
        for (const r of s.rows) {
          const t = readTimestamp(r.values[left.watermark!.column]);
          if (typeof t === 'number') lefts.push({ t, step: i });
        }
      }
    });
    for (const l of lefts) {
      if (changes.some((ch) => ch.step < l.step && ch.t > l.t)) return { step: l.step, why: `a change of '${right.name}' committed after a row's time is inserted before the row, and ClickHouse joins the latest version (clickhouse-temporal-join-latest)` };
      if (changes.some((ch) => ch.step > l.step && ch.t <= l.t)) return { step: l.step, why: `a change of '${right.name}' valid at a row's time is inserted after the row, and ClickHouse joins only on inserts into '${left.name}' (clickhouse-mv-join-left-only)` };
    }
  }
  return null;
}
