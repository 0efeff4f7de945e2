// Every connector the runtime ships: the built-ins (connectors.ts) plus those that register
// themselves (Kafka, the ClickHouse sink). The code generator asks this module what it can run, and the runtime
// bundle imports it, so the two always agree.
import './kafka/register.ts';
import './clickhouse/register.ts';
// The PostgreSQL CDC source (lib/postgres-cdc/) is not registered yet: the runner has no
// changelog model, so deletes and updates would flow as inserts. Until it does, the code
// generator keeps reporting postgres-cdc as unsupported rather than running it wrongly.

export { hasSink, hasSource, registerSink, registerSource, type ConnectorContext } from './connectors.ts';
