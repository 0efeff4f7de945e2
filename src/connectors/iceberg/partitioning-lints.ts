// Lints on an Iceberg sink's partition spec: identity on a high-cardinality column, and bucket
// on a column that is not a key of the rows written.
import type { IrOperator, IrSink } from '../../plan/ir.ts';
import { formatSqlType } from '../../types/sql-type.ts';
import { columnCardinality, type PlanIndex } from '../../plan/plan-index.ts';
import type { ConnectorLint } from '../descriptor.ts';
import { assertNever } from '../../util/assert-never.ts';

/** Column types whose values are usually too many to partition by one by one. */
const HIGH_CARDINALITY_KINDS = new Set(['string', 'bigint', 'bytes', 'timestamp', 'decimal', 'double', 'float']);
/** A column known to have at most this many values is fine as an identity partition. */
export const IDENTITY_CARDINALITY_LIMIT = 1000;

export const icebergIdentityHighCardinality: ConnectorLint = {
  code: 'iceberg-identity-high-cardinality',
  run({ plan, index, diags }) {
    for (const s of plan.sinks) {
      if (s.connector !== 'iceberg') continue;
      for (const f of s.iceberg.partitionBy) {
        if (f.transform !== 'identity') continue;
        const col = s.schema.find((c) => c.name === f.column);
        if (!col || !HIGH_CARDINALITY_KINDS.has(col.type.kind)) continue;
        const sc = s.input ? index.traceColumn(s.input, f.column) : null;
        const known = sc ? columnCardinality(sc) : null;
        if (known !== null && known <= IDENTITY_CARDINALITY_LIMIT) continue;
        diags.report('iceberg-identity-high-cardinality', s.span, { sink: s.name, column: f.column, type: formatSqlType(col.type, false) });
      }
    }
  },
};

/** The columns that address the rows an operator emits (upsert or grouping key), or null. */
export function rowKey(index: PlanIndex, opId: string): string[] | null {
  const o: IrOperator | undefined = index.op(opId);
  if (!o) return null;
  if (o.upsertKey && o.upsertKey.length) return o.upsertKey;
  switch (o.op) {
    case 'window_agg':
    case 'group_agg':
      return o.groupKeys.length ? o.groupKeys.map((g) => g.name) : null;
    case 'filter':
      return rowKey(index, o.inputs[0]!);
    case 'project': {
      const inner = rowKey(index, o.inputs[0]!);
      if (!inner) return null;
      const mapped = inner.map((k) => o.exprs.find((e) => e.expr.kind === 'col' && e.expr.name === k)?.name ?? null);
      return mapped.every((m) => m !== null) ? (mapped as string[]) : null;
    }
    case 'scan': {
      const src = index.sourcesById.get(o.source);
      const key = src?.primaryKey ?? src?.messageKey ?? null;
      return key && key.length ? key : null;
    }
    case 'temporal_join':
    case 'interval_join': {
      const inner = rowKey(index, o.inputs[0]!);
      if (!inner) return null;
      const mapped = inner.map((k) => o.outputMap.find((m) => m.input === 0 && m.column === k)?.name ?? null);
      return mapped.every((m) => m !== null) ? (mapped as string[]) : null;
    }
    case 'union':
      return null;
    default:
      return assertNever(o);
  }
}

function sinkKey(index: PlanIndex, s: IrSink): string[] | null {
  if (s.upsertKey && s.upsertKey.length) return s.upsertKey;
  return s.input ? rowKey(index, s.input) : null;
}

export const icebergBucketNonKey: ConnectorLint = {
  code: 'iceberg-bucket-non-key',
  run({ plan, index, diags }) {
    for (const s of plan.sinks) {
      if (s.connector !== 'iceberg') continue;
      const key = sinkKey(index, s);
      if (!key) continue;
      for (const f of s.iceberg.partitionBy) {
        if (f.transform !== 'bucket' || key.includes(f.column)) continue;
        diags.report('iceberg-bucket-non-key', s.span, { sink: s.name, column: f.column, keys: key.join(', ') });
      }
    }
  },
};
