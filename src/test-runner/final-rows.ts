// What another target's test case compares against: a sink's expected rows as a set, and for
// a changelog sink its final row per key (what a ReplacingMergeTree, an aggregate read view or
// a Debezium changelog read back shows). Shared by the ClickHouse and Flink test cases.
import type { IrSink } from '../plan/ir.ts';
import { opColumnName } from '../../targets/runtime/lib/ops/types.ts';
import type { Row } from './compare.ts';
import type { Expectation } from './test-file.ts';

/** A changelog's final rows per key; null when some row does not name every key column. */
export function foldChangelog(sink: Pick<IrSink, 'schema' | 'upsertKey'>, rows: Row[]): Row[] | null {
  const op = opColumnName(sink.schema);
  const key = sink.upsertKey?.length ? sink.upsertKey : sink.schema.map((c) => c.name);
  if (rows.some((r) => key.some((k) => !(k in r)))) return null;
  const state = new Map<string, Row>();
  for (const r of rows) {
    const k = JSON.stringify(key.map((c) => r[c]));
    const kind = String(r[op]);
    const { [op]: _kind, ...values } = r;
    if (kind === '+I' || kind === '+U') state.set(k, values);
    else state.delete(k);
  }
  return [...state.values()];
}

/**
 * The expectation another target is checked against: an append sink's rows as a set, a
 * changelog folded to its final rows; `not` is told why when the final rows are unknown.
 */
export function finalRowsExpectation(sink: IrSink, e: Expectation, not: (why: string) => void): Expectation | null {
  if (sink.changelog === 'append') return { ...e, order: 'set' };
  const folded = foldChangelog(sink, e.rows);
  if (folded !== null) return { ...e, order: 'set', rows: folded };
  not('its expected changelog rows do not name every key column, so their final rows are unknown');
  return null;
}
