// `@pipec/runtime/iceberg`: the `iceberg` sink (lib/iceberg/ and the table writer).
import type { RuntimeModule } from '../connectors.ts';
import { IcebergSink } from '../iceberg/iceberg-sink.ts';

export const icebergModule: RuntimeModule = { name: 'iceberg', sinks: { iceberg: (def, ctx) => new IcebergSink(def, ctx) } };
