// One-line descriptions of sources, operators and sinks, shared by the text and dot printers
// (text joins the parts with '; ', dot puts each on its own label line).
import { quoteIdentIfNeeded } from '../../types/sql-type.ts';
import { assertNever } from '../../util/assert-never.ts';
import { clickhouseDdlTable } from '../clickhouse-ddl-table.ts';
import type { IrOperator, IrSink, IrSource, LateHandling } from '../ir.ts';
import { aggregateText, exprText, stateBoundText, windowText } from './expr.ts';
import { formatDuration } from './format.ts';

const names = (xs: readonly string[]) => xs.map(quoteIdentIfNeeded).join(', ');

function keysText(keys: { name: string }[]): string {
  return keys.length ? `keys (${names(keys.map((g) => g.name))})` : 'no grouping key';
}

function lateText(l: LateHandling): string {
  switch (l.kind) {
    case 'drop':
      return 'late rows dropped';
    case 'to':
      return `late rows to ${l.sink}`;
    case 'unspecified':
      return 'late rows dropped (no ON LATE choice)';
    default:
      return assertNever(l);
  }
}

/** The operator's own parts, without its id, changelog or state. */
export function operatorParts(o: IrOperator, sources: Map<string, IrSource>): string[] {
  switch (o.op) {
    case 'scan': {
      const s = sources.get(o.source);
      const what = s ? `${s.name} (${s.connector}${s.format ? `, ${s.format}` : ''})` : o.source;
      return [`source ${what}`, `columns ${names(o.schema.map((c) => c.name))}`];
    }
    case 'filter':
      return [exprText(o.predicate)];
    case 'project':
      return [
        o.exprs
          .map((e) => (e.expr.kind === 'col' && e.expr.name === e.name ? quoteIdentIfNeeded(e.name) : `${quoteIdentIfNeeded(e.name)} = ${exprText(e.expr)}`))
          .join(', '),
      ];
    case 'window_agg':
      return [
        windowText(o.window, o.windowTimeColumn),
        keysText(o.groupKeys),
        o.aggregates.map(aggregateText).join(', '),
        o.emit === 'changes' ? 'emit changes' : 'emit on window close',
        ...(o.allowedLatenessMs ? [`allowed lateness ${formatDuration(o.allowedLatenessMs)}`] : []),
        lateText(o.late),
        ...(o.paneMs !== null ? [`panes of ${formatDuration(o.paneMs)}`] : []),
      ];
    case 'group_agg':
      return [keysText(o.groupKeys), o.aggregates.map(aggregateText).join(', ')];
    case 'interval_join': {
      const keys = o.leftKeys.map((k, i) => `${exprText(k, true)} = ${exprText(o.rightKeys[i]!, true)}`);
      return [
        `${o.joinType} join on ${keys.join(' AND ') || 'TRUE'}`,
        `left.${o.leftTime} - right.${o.rightTime} in [${formatDuration(o.lowerMs)}, ${formatDuration(o.upperMs)}]`,
        ...(o.residual ? [`and ${exprText(o.residual, true)}`] : []),
      ];
    }
    case 'temporal_join': {
      const keys = o.leftKeys.map((k, i) => `${exprText(k, true)} = right.${quoteIdentIfNeeded(o.rightKeys[i]!)}`);
      return [
        `${o.joinType} join FOR SYSTEM_TIME AS OF left.${o.asOfColumn}`,
        `on ${keys.join(' AND ')}`,
        ...(o.residual ? [`and ${exprText(o.residual, true)}`] : []),
      ];
    }
    case 'union':
      return [`${o.inputs.length} inputs`];
    default:
      return assertNever(o);
  }
}

/** "append", or "upsert key (a, b)". */
export function changelogText(changelog: string, key: string[] | null): string {
  return key && key.length && changelog !== 'append' ? `${changelog} key (${names(key)})` : changelog;
}

export function operatorState(o: IrOperator): string {
  return stateBoundText(o.stateBound, o.op === 'window_agg' ? o : undefined);
}

/** Where a sink writes: "clickhouse analytics.revenue_1m", "kafka topic 'alerts'", ... */
export function sinkTarget(s: IrSink, pipeline?: string): string {
  switch (s.connector) {
    case 'clickhouse': {
      // The ClickHouse DDL's table differs from the runtime's by default (src/plan/clickhouse-ddl-table.ts): show both.
      const ddl = pipeline !== undefined ? clickhouseDdlTable(pipeline, s) : null;
      return `clickhouse ${s.clickhouse.table}${ddl ? ` (ClickHouse DDL: ${ddl.db}.${ddl.table})` : ''}`;
    }
    case 'iceberg': {
      const ice = s.iceberg;
      const parts = ice.partitionBy.map((p) => (p.transform === 'identity' ? p.column : `${p.transform}(${p.param !== null ? `${p.param}, ` : ''}${p.column})`));
      return `iceberg ${ice.catalog}.${ice.table}${parts.length ? ` partitioned by ${parts.join(', ')}` : ''}, commit every ${formatDuration(ice.commitIntervalMs)}`;
    }
    case 'kafka':
      return `kafka topic '${s.kafka.topic}' (${s.kafka.format}, acks=${s.kafka.acks}, ${s.kafka.delivery})`;
    case 'file':
      return `file ${s.file.path} (${s.file.format})`;
    case 'stdout':
      return 'stdout';
    default:
      return assertNever(s);
  }
}

/** "order_ts - 5 s, idle timeout 30 s" or "none". */
export function watermarkText(s: IrSource): string {
  const w = s.watermark;
  if (!w) return 'no watermark';
  return `${w.column} - ${formatDuration(w.delayMs)}, ${w.idleTimeoutMs === null ? 'no idle timeout' : `idle timeout ${formatDuration(w.idleTimeoutMs)}`}`;
}
