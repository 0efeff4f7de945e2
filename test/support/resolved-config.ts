// Hand-made runtime defs (tests that construct a connector directly) get their resolved config the
// way generated modules do: the options through the connector's resolver
// (targets/runtime/lib/config/<name>/config.ts). The runtime's connectors read only `def.config`.
import type { RawOption } from '../../targets/runtime/lib/config/option-reader.ts';
import type { SinkConfig, SourceConfig } from '../../targets/runtime/lib/config/config-types.ts';
import { resolveKafkaSink, resolveKafkaSource } from '../../targets/runtime/lib/config/kafka/config.ts';
import { resolveClickHouseSink } from '../../targets/runtime/lib/config/clickhouse/config.ts';
import { resolvePostgresCdcSource } from '../../targets/runtime/lib/config/postgres-cdc/config.ts';

/** Plain strings as options without `${VAR}` templates. */
export function rawOptions(o: Record<string, string>): Record<string, RawOption> {
  const out: Record<string, RawOption> = {};
  for (const [k, v] of Object.entries(o)) out[k] = { value: v, template: v, envVars: [] };
  return out;
}

/** `pipeline` names the default consumer group / transactional id, as the compiler's lowering does. */
export function sourceConfigOf(connector: 'kafka' | 'postgres-cdc', name: string, options: Record<string, string>, pipeline?: string): SourceConfig {
  return connector === 'kafka' ? resolveKafkaSource(name, rawOptions(options), pipeline) : resolvePostgresCdcSource(name, rawOptions(options));
}

export function sinkConfigOf(connector: 'kafka' | 'clickhouse', name: string, options: Record<string, string>, pipeline?: string): SinkConfig {
  return connector === 'kafka' ? resolveKafkaSink(name, rawOptions(options), pipeline) : resolveClickHouseSink(name, rawOptions(options));
}
