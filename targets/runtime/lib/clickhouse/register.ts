// Registers the `clickhouse` sink with the runtime's connector registry. Its deduplication
// tokens name every source's position (`ctx.sourcePositions()`), and a degraded guarantee
// (no token on this server) is reported through `ctx.warn`.
import { registerSink } from '../connectors.ts';
import { ClickHouseSink } from './clickhouse-sink.ts';

registerSink('clickhouse', (def, ctx) => new ClickHouseSink(def, { env: ctx.env, positions: () => ctx.sourcePositions(), warn: (m) => ctx.warn(m) }));
