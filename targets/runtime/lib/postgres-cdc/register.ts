// Registers the `postgres-cdc` source with the runtime's connector registry. Its rows carry
// changelog kinds (+I / -U / +U / -D, see cdc-source.ts); sinks name its position through
// the runner's `ctx.sourcePositions()` like any other source's.
import { registerSource } from '../connectors.ts';
import { PostgresCdcSource } from './cdc-source.ts';

registerSource('postgres-cdc', (def, out, ctx) => new PostgresCdcSource(def, out, { env: ctx.env }));
