// `@pipec/runtime/postgres-cdc`: the `postgres-cdc` source (pg, logical replication). Its rows carry
// changelog kinds (+I / -U / +U / -D, see cdc-source.ts); sinks name its position through
// the runner's `ctx.sourcePositions()` like any other source's.
import type { RuntimeModule } from '../connectors.ts';
import { PostgresCdcSource } from '../postgres-cdc/cdc-source.ts';

export const postgresCdcModule: RuntimeModule = {
  name: 'postgres-cdc',
  sources: { 'postgres-cdc': (def, out, ctx) => new PostgresCdcSource(def, out, { env: ctx.env }) },
};
