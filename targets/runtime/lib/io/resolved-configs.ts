// The resolved config of a built-in connector's def: the one the compiler decided (`def.config`,
// written by the generated module). A def without it (made by hand) is refused: no connector
// re-reads its options or applies a default of its own.
import type { SourceDef } from './source-types.ts';
import type { SinkDef } from './sinks.ts';
import type { FileSinkConfig, FileSourceConfig } from '../config/file/config.ts';
import type { StdoutSinkConfig } from '../config/stdout/config.ts';
import type { DatagenSourceConfig } from '../config/datagen/config.ts';

export class MissingConfigError extends Error {}

function refuse(side: 'source' | 'sink', def: { name: string; connector: string }): never {
  throw new MissingConfigError(`${side} '${def.name}': no resolved ${def.connector} configuration (generated modules pass one; a def made by hand resolves its options with the connector's resolver)`);
}

export function fileSourceConfig(def: SourceDef): FileSourceConfig {
  return def.config?.connector === 'file' ? def.config : refuse('source', def);
}

export function fileSinkConfig(def: SinkDef): FileSinkConfig {
  return def.config?.connector === 'file' ? def.config : refuse('sink', def);
}

export function stdoutSinkConfig(def: SinkDef): StdoutSinkConfig {
  return def.config?.connector === 'stdout' ? def.config : refuse('sink', def);
}

export function datagenSourceConfig(def: SourceDef): DatagenSourceConfig {
  return def.config?.connector === 'datagen' ? def.config : refuse('source', def);
}
