// Registers the `clickhouse` sink with the runtime's connector registry. Its deduplication
// tokens name the positions of the run's CDC sources (other sources' positions need the
// runner to expose them; until then the batch sequence number and content carry the token).
import { registerSink } from '../connectors.ts';
import { cdcPositions } from '../postgres-cdc/register.ts';
import { ClickHouseSink } from './clickhouse-sink.ts';

registerSink('clickhouse', (def, ctx) => new ClickHouseSink(def, { env: ctx.env, positions: () => cdcPositions(ctx), warn: (m) => process.stderr.write(`warning: ${m}\n`) }));
