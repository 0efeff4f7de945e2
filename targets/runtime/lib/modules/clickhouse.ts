// `@pipec/runtime/clickhouse`: the `clickhouse` sink (@clickhouse/client). Its deduplication
// tokens name every source's position (`ctx.sourcePositions()`), the pipeline and, scaled out,
// the member (`ctx.member`); exactly-once intervals are staged under the run's checkpoint dir,
// and a degraded guarantee (no token on this server, a table that does not deduplicate) is
// reported through `ctx.warn`.
import type { RuntimeModule, SinkFactory } from '../connectors.ts';
import { ClickHouseSink } from '../clickhouse/clickhouse-sink.ts';

const sink: SinkFactory = (def, ctx) =>
    new ClickHouseSink(def, {
      env: ctx.env,
      pipeline: ctx.pipeline,
      member: ctx.member,
      checkpointDir: ctx.checkpointDir,
      positions: () => ctx.sourcePositions(),
      warn: (m) => ctx.warn(m),
    });

export const clickhouseModule: RuntimeModule = { name: 'clickhouse', sinks: { clickhouse: sink } };
