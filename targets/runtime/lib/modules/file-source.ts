// `@pipec/runtime/file-source`: the `file` source (NDJSON, CSV, Parquet files matched by a glob).
import type { RuntimeModule } from '../connectors.ts';
import { FileSource } from '../io/file-source.ts';

export const fileSourceModule: RuntimeModule = { name: 'file-source', sources: { file: (def, out, ctx) => new FileSource(def, ctx.baseDir, out, ctx.ownsPartition ? (rel) => ctx.ownsPartition!(def.id, rel) : undefined) } };
