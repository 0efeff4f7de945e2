// The lowering's connector step: each source's and sink's options resolved by its connector
// descriptor's resolver (src/connectors/<name>/descriptor.ts), which reads what the checker
// already decided (the Kafka sink key, the Iceberg table settings) so nothing is decided twice.
import type { IrSink, IrSource } from '../ir.ts';
import type { SinkConfig, SourceConfig } from '../../../targets/runtime/lib/config/config-types.ts';
import type { CommitPoint, SinkTable } from './types.ts';
import { connectorNamed } from '../../connectors/index.ts';

export function sourceConfig(s: IrSource, pipeline: string): SourceConfig {
  const side = connectorNamed(s.connector)?.source;
  // A connector without a resolver (none today): nothing to resolve.
  return (side ? side.resolve(s, { pipeline }) : { connector: s.connector, templated: [] }) as SourceConfig;
}

export function sinkConfig(s: IrSink, pipeline: string): SinkConfig {
  const side = connectorNamed(s.connector)?.sink;
  return (side ? side.resolve(s, { pipeline }) : { connector: s.connector, templated: [] }) as SinkConfig;
}

/** When the sink's output is durable (docs/kafka.md, docs/cdc-and-clickhouse-sink.md, docs/iceberg-sink.md). */
export function commitPoint(c: SinkConfig): CommitPoint {
  switch (c.connector) {
    case 'kafka':
    case 'clickhouse':
      return c.delivery === 'exactly-once' ? { kind: 'checkpoint' } : { kind: 'flush' };
    case 'iceberg':
      return { kind: 'interval', intervalMs: c.commitIntervalMs };
    case 'file':
    case 'stdout':
    default:
      return { kind: 'flush' };
  }
}

/** The table a storing sink writes and its layout, as the checker resolved it (types.ts SinkTable). */
export function sinkTable(s: IrSink): SinkTable | null {
  if (s.connector === 'clickhouse' && s.clickhouse) {
    const ch = s.clickhouse;
    // The checker qualifies a bare name with `default`; the database ends at the first dot.
    const dot = ch.table.indexOf('.');
    return {
      kind: 'clickhouse',
      database: dot < 0 ? 'default' : ch.table.slice(0, dot),
      name: dot < 0 ? ch.table : ch.table.slice(dot + 1),
      orderBy: [...ch.orderBy],
      partitionBy: ch.partitionBy,
      ttl: ch.ttl,
    };
  }
  if (s.connector === 'iceberg' && s.iceberg) {
    return { kind: 'iceberg', partitionSpec: s.iceberg.partitionBy.map((p) => ({ ...p })), sortOrder: s.iceberg.sortBy.map((f) => ({ ...f })) };
  }
  return null;
}
