// Lints on the grouping key of aggregations: a key that differs from the Kafka message key
// (repartition needed to scale out), and a key with only a few distinct values (hot partition).
import type { GroupAggOp, WindowAggOp } from '../../plan/ir.ts';
import { columnCardinality, scaleOutOf, type SourceColumn } from '../../plan/graph.ts';
import type { LintContext, LintRule } from '../rule.ts';

/** Grouping keys with at most this many distinct values in total make a hot partition. */
export const HOT_PARTITION_LIMIT = 16;

function aggregates(ctx: LintContext): (WindowAggOp | GroupAggOp)[] {
  return ctx.plan.operators.filter((o): o is WindowAggOp | GroupAggOp => o.op === 'window_agg' || o.op === 'group_agg');
}

function traceKeys(ctx: LintContext, o: WindowAggOp | GroupAggOp): (SourceColumn | null)[] {
  return o.groupKeys.map((g) => (g.expr.kind === 'col' ? ctx.index.traceColumn(o.inputs[0]!, g.expr.name) : null));
}

export const groupKeyMessageKey: LintRule = {
  code: 'group-key-not-message-key',
  run(ctx) {
    // With scale_out = 'partitions' the checker refuses every such aggregation with an error
    // (scale-out-key-not-message-key); the warning would only repeat it.
    if (scaleOutOf(ctx.plan) === 'partitions') return;
    for (const o of aggregates(ctx)) {
      if (o.groupKeys.length === 0) continue;
      const scan = ctx.index.straightScan(o.inputs[0]!);
      const source = scan && scan.op === 'scan' ? ctx.index.sourcesById.get(scan.source) : undefined;
      if (!source || source.connector !== 'kafka') continue;
      const grouped = new Set(traceKeys(ctx, o).filter((t) => t && t.source === source).map((t) => t!.column.name));
      const mk = source.messageKey;
      // Records of one group share a partition exactly when the message key is a function of the group key.
      if (mk && mk.length && mk.every((k) => grouped.has(k))) continue;
      ctx.diags.report('group-key-not-message-key', o.span, {
        owner: ctx.index.owner(o.id),
        groupKeys: o.groupKeys.map((g) => g.name).join(', '),
        source: source.name,
        messageKey: mk && mk.length ? `(${mk.join(', ')})` : 'nothing (records are spread over partitions without a key)',
      });
    }
  },
};

export const hotPartition: LintRule = {
  code: 'hot-partition-group-key',
  run(ctx) {
    for (const o of aggregates(ctx)) {
      if (o.groupKeys.length === 0) continue;
      let distinct = 1;
      for (const t of traceKeys(ctx, o)) {
        const n = t ? columnCardinality(t) : null;
        if (n === null) {
          distinct = Infinity;
          break;
        }
        distinct *= n;
      }
      if (distinct > HOT_PARTITION_LIMIT) continue;
      ctx.diags.report('hot-partition-group-key', o.span, {
        owner: ctx.index.owner(o.id),
        groupKeys: o.groupKeys.map((g) => g.name).join(', '),
        distinct,
      });
    }
  },
};
