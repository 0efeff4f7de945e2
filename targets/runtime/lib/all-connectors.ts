// Every connector the runtime ships: the built-ins (connectors.ts) plus those that register
// themselves (Kafka). The code generator asks this module what it can run, and the runtime
// bundle imports it, so the two always agree.
import './kafka/register.ts';
import './iceberg/register.ts';
import './postgres-cdc/register.ts';
import './clickhouse/register.ts';

export { hasSink, hasSource, registerSink, registerSource, type ConnectorContext } from './connectors.ts';
