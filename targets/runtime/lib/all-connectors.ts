// Every connector the runtime ships: the built-ins (connectors.ts) plus those that register
// themselves (Kafka). The code generator asks this module what it can run, and the runtime
// bundle imports it, so the two always agree.
import './kafka/register.ts';
import './iceberg/register.ts';
// Not registered yet: the PostgreSQL CDC source (lib/postgres-cdc/) — the runner has no
// changelog model, so deletes and updates would flow as inserts — and the ClickHouse sink
// (lib/clickhouse/), whose registration pulls in the CDC one. Until the runner carries
// changelogs, the code generator reports both as unsupported rather than running them wrongly.

export { hasSink, hasSource, registerSink, registerSource, type ConnectorContext } from './connectors.ts';
