// Registers the `postgres-cdc` source with the runtime's connector registry, and keeps the CDC
// sources of each run so sinks of the same run can name their positions.
import { registerSource, type ConnectorContext } from '../connectors.ts';
import { PostgresCdcSource } from './cdc-source.ts';

const sourcesOfRun = new WeakMap<ConnectorContext, PostgresCdcSource[]>();

registerSource('postgres-cdc', (def, out, ctx) => {
  const src = new PostgresCdcSource(def, out, { env: ctx.env });
  const list = sourcesOfRun.get(ctx) ?? [];
  list.push(src);
  sourcesOfRun.set(ctx, list);
  return src;
});

/** Positions of the run's CDC sources by source name (for sink idempotency tokens). */
export function cdcPositions(ctx: ConnectorContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of sourcesOfRun.get(ctx) ?? []) out[s.def.name] = s.position();
  return out;
}
