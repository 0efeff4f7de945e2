// The lowering's connector step: each source's and sink's options resolved by its connector
// descriptor's resolver (src/connectors/<name>/descriptor.ts), which reads what the checker
// already decided (the Kafka sink key, the Iceberg table settings) so nothing is decided twice.
import type { IrCatalog, IrCompaction, IrOption, IrSink, IrSource } from '../ir.ts';
import type { SinkConfig, SourceConfig } from '../../../targets/runtime/lib/config/config-types.ts';
import type { CommitPoint, PhysicalCatalog, PhysicalCompaction, PlanValue, SinkTable, SourceTopic } from './types.ts';
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

const planValue = (o: IrOption): PlanValue => ({ text: o.envVars.length > 0 ? o.template : o.value, envVars: [...o.envVars] });
const fromEnv = (name: string): PlanValue => ({ text: `\${${name}}`, envVars: [name] });

/** The topic of a topic-backed source (types.ts SourceTopic); null for file and datagen sources. */
export function sourceTopic(s: IrSource, pipelineOptions: Record<string, IrOption>): SourceTopic | null {
  if (s.connector !== 'kafka' && s.connector !== 'postgres-cdc') return null;
  const o = s.options;
  const plain = (k: string): string | null => (o[k] && o[k].envVars.length === 0 ? o[k].value : null);
  // Debezium names change topics <topic.prefix>.<schema>.<table>; pipec uses the source name as prefix.
  const table = plain('table');
  const defaultTopic = table ? `${s.name}.${table.includes('.') ? table : `public.${table}`}` : s.name;
  const registry = o['schema_registry_url'] ?? pipelineOptions['schema_registry_url'];
  return {
    topic: o['topic'] ? planValue(o['topic']) : { text: defaultTopic, envVars: [] },
    brokers: o['brokers'] ? planValue(o['brokers']) : fromEnv('PIPEC_KAFKA_BROKERS'),
    groupId: o['group_id'] ? planValue(o['group_id']) : null,
    startup: plain('startup'),
    consumers: Number(plain('consumers') ?? '1') || 1,
    registryUrl: registry ? planValue(registry) : fromEnv('PIPEC_SCHEMA_REGISTRY_URL'),
  };
}

export function physicalCatalog(c: IrCatalog): PhysicalCatalog {
  return { name: c.name, type: c.type, options: Object.fromEntries(Object.entries(c.options).map(([k, o]) => [k, planValue(o)])) };
}

export function physicalCompaction(c: IrCompaction): PhysicalCompaction {
  return { name: c.name, sink: c.sink, actions: c.actions.map((a) => ({ ...a })), scheduleMs: c.scheduleMs };
}
