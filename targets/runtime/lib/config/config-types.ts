// The resolved configuration of every connector, as discriminated unions on `connector`: what
// the physical plan carries (src/plan/physical/) and what the runtime's connector factories
// receive (`SourceDef.config` / `SinkDef.config`). Type-only: safe for the runtime to import.
export type { KafkaSourceConfig, KafkaSinkConfig } from './kafka/config.ts';
export type { ClickHouseSinkConfig } from './clickhouse/config.ts';
export type { PostgresCdcSourceConfig } from './postgres-cdc/config.ts';
export type { FileSourceConfig, FileSinkConfig } from './file/config.ts';
export type { StdoutSinkConfig } from './stdout/config.ts';
export type { DatagenSourceConfig } from './datagen/config.ts';
export type { IcebergSinkConfig } from './iceberg/config.ts';
import type { KafkaSourceConfig, KafkaSinkConfig } from './kafka/config.ts';
import type { ClickHouseSinkConfig } from './clickhouse/config.ts';
import type { PostgresCdcSourceConfig } from './postgres-cdc/config.ts';
import type { FileSourceConfig, FileSinkConfig } from './file/config.ts';
import type { StdoutSinkConfig } from './stdout/config.ts';
import type { DatagenSourceConfig } from './datagen/config.ts';
import type { IcebergSinkConfig } from './iceberg/config.ts';

export type SourceConfig = KafkaSourceConfig | PostgresCdcSourceConfig | FileSourceConfig | DatagenSourceConfig;
export type SinkConfig = KafkaSinkConfig | ClickHouseSinkConfig | FileSinkConfig | StdoutSinkConfig | IcebergSinkConfig;
