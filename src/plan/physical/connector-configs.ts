// The lowering's connector step: each source's and sink's options resolved by its connector
// descriptor's resolver (src/connectors/<name>/descriptor.ts), which reads what the checker
// already decided (the Kafka sink key, the Iceberg table settings) so nothing is decided twice.
import type { IrSink, IrSource } from '../ir.ts';
import type { SinkConfig, SourceConfig } from '../../connectors/config-types.ts';
import type { CommitPoint } from './types.ts';
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
