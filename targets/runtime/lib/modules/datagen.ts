// `@pipec/runtime/datagen`: the `datagen` source (reproducible generated rows).
import type { RuntimeModule } from '../connectors.ts';
import { DatagenSource } from '../io/datagen-source.ts';

export const datagenModule: RuntimeModule = { name: 'datagen', sources: { datagen: (def, out) => new DatagenSource(def, out) } };
