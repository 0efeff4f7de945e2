// Registers the `iceberg` sink with the runtime's connector registry (lib/iceberg/).
import { registerSink } from '../connectors.ts';
import { IcebergSink } from './iceberg-sink.ts';

registerSink('iceberg', (def, ctx) => new IcebergSink(def, ctx));
