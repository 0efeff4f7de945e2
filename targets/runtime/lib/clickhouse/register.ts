// Registers the `clickhouse` sink with the runtime's connector registry. Its deduplication
// tokens name every source's position (`ctx.sourcePositions()`), the pipeline and, scaled out,
// the member (`ctx.member`); exactly-once intervals are staged under the run's checkpoint dir,
// and a degraded guarantee (no token on this server, a table that does not deduplicate) is
// reported through `ctx.warn`.
import { registerSink } from '../connectors.ts';
import { ClickHouseSink } from './clickhouse-sink.ts';

registerSink(
  'clickhouse',
  (def, ctx) =>
    new ClickHouseSink(def, {
      env: ctx.env,
      pipeline: ctx.pipeline,
      member: ctx.member,
      checkpointDir: ctx.checkpointDir,
      positions: () => ctx.sourcePositions(),
      warn: (m) => ctx.warn(m),
    }),
);
