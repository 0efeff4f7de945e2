// The postgres-cdc source connector (docs/cdc-and-clickhouse-sink.md): logical replication of
// one table, its initial snapshot then its changes.
import { duration, int, oneOf, str, COMMON_SOURCE_OPTIONS, type ConnectorDescriptor } from '../descriptor.ts';
import { resolvePostgresCdcSource } from '../../../targets/runtime/lib/config/postgres-cdc/config.ts';
import { cdcHeartbeat } from './lints.ts';

export const postgresCdc: ConnectorDescriptor = {
  name: 'postgres-cdc',
  doc: 'Reads one PostgreSQL table as a changelog: an initial snapshot, then its changes through a logical replication slot. Columns may come from the catalog.',
  source: {
    options: [
      ...COMMON_SOURCE_OPTIONS,
      { key: 'dsn', type: str, required: true, secret: true, doc: 'Connection string (use `${VAR}` for the password).' },
      { key: 'table', type: str, required: true, doc: '`table` or `schema.table`.' },
      { key: 'slot', type: str, default: '`pipec_<source>`', doc: 'Replication slot name.' },
      { key: 'publication', type: str, default: '`pipec_<source>_pub`', doc: 'Publication name.' },
      { key: 'snapshot', type: oneOf('initial', 'never'), default: 'initial', doc: 'Read the existing rows first, or only changes.' },
      { key: 'heartbeat', type: duration, default: 'none', doc: 'Heartbeat interval that keeps an idle slot from retaining WAL.' },
      { key: 'snapshot.fetch_size', type: int(1), default: '5000', doc: 'Rows per cursor fetch of the initial snapshot.' },
      { key: 'reconnect_timeout', type: duration, default: '2 min', doc: 'How long to keep reconnecting before the run fails.' },
    ],
    resolve: (s) => resolvePostgresCdcSource(s.name, s.options),
  },
  lints: [cdcHeartbeat],
  targets: {
    runtime: { source: { module: 'postgres-cdc', binding: 'postgresCdcModule' } },
    clickhouse: 'source: the Debezium JSON topic of the table (Kafka engine) into a ReplacingMergeTree(_version, _is_deleted) keyed by the primary key',
    flink: { source: 'postgres-cdc' },
  },
};
