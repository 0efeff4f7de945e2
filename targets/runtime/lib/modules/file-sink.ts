// `@pipec/runtime/file-sink`: the `file` sink (an NDJSON file, or a directory of Parquet parts).
import type { RuntimeModule } from '../connectors.ts';
import { FileNdjsonSink, ParquetSink } from '../io/sinks.ts';
import { fileSinkConfig } from '../io/resolved-configs.ts';

export const fileSinkModule: RuntimeModule = {
  name: 'file-sink',
  sinks: { file: (def, ctx) => (fileSinkConfig(def).format === 'parquet' ? new ParquetSink(def, ctx.baseDir) : new FileNdjsonSink(def, ctx.baseDir)) },
};
