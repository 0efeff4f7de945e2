// The lowering's connector step: each source's and sink's options resolved by its connector's
// resolver (targets/runtime/lib/config/<name>/config.ts), with what the checker already decided (the Kafka
// sink key, the file format, the Iceberg table settings) passed in so nothing is decided twice.
import type { IrSink, IrSource } from '../ir.ts';
import type { SinkConfig, SourceConfig } from '../../../targets/runtime/lib/config/config-types.ts';
import type { CommitPoint, SinkTable } from './types.ts';
import { resolveKafkaSink, resolveKafkaSource } from '../../../targets/runtime/lib/config/kafka/config.ts';
import { resolveClickHouseSink } from '../../../targets/runtime/lib/config/clickhouse/config.ts';
import { resolvePostgresCdcSource } from '../../../targets/runtime/lib/config/postgres-cdc/config.ts';
import { resolveFileSink, resolveFileSource } from '../../../targets/runtime/lib/config/file/config.ts';
import { resolveStdoutSink } from '../../../targets/runtime/lib/config/stdout/config.ts';
import { resolveDatagenSource } from '../../../targets/runtime/lib/config/datagen/config.ts';

export function sourceConfig(s: IrSource, pipeline: string): SourceConfig {
  switch (s.connector) {
    case 'kafka':
      return resolveKafkaSource(s.name, s.options, pipeline);
    case 'postgres-cdc':
      return resolvePostgresCdcSource(s.name, s.options);
    case 'file':
      return resolveFileSource(s.name, s.options);
    case 'datagen':
      return resolveDatagenSource(s.name, s.options);
    default:
      // A connector outside the built-ins (registered by a test): nothing to resolve.
      return { connector: s.connector, templated: [] } as unknown as SourceConfig;
  }
}

export function sinkConfig(s: IrSink, pipeline: string): SinkConfig {
  switch (s.connector) {
    case 'kafka':
      return resolveKafkaSink(s.name, s.options, pipeline, s.kafka ? s.kafka.key : undefined);
    case 'clickhouse':
      return resolveClickHouseSink(s.name, s.options);
    case 'file':
      return resolveFileSink(s.name, s.options);
    case 'stdout':
      return resolveStdoutSink(s.name, s.options);
    case 'iceberg': {
      const i = s.iceberg;
      return {
        connector: 'iceberg',
        catalog: i?.catalog ?? '',
        table: i?.table ?? '',
        formatVersion: i?.formatVersion ?? 2,
        targetFileSizeBytes: i?.targetFileSizeBytes ?? 0,
        commitIntervalMs: i?.commitIntervalMs ?? 0,
        writeMode: i?.writeMode ?? 'copy-on-write',
        compressionCodec: i?.compressionCodec ?? 'snappy',
        partitionBy: (i?.partitionBy ?? []).map((p) => (p.param !== null ? `${p.transform}[${p.param}](${p.column})` : p.transform === 'identity' ? p.column : `${p.transform}(${p.column})`)),
        sortBy: (i?.sortBy ?? []).map((f) => `${f.column} ${f.direction} nulls ${f.nulls}`),
        templated: [],
      };
    }
    default:
      return { connector: s.connector, templated: [] } as unknown as SinkConfig;
  }
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
