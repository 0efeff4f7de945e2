// The resolved config of a built-in connector's def: the one the compiler decided (`def.config`,
// written by the generated module), or for a hand-made def (tests) its options through the same
// resolver (targets/runtime/lib/config/<name>/config.ts). No connector here applies a default of its own.
import type { SourceDef } from './source-types.ts';
import type { SinkDef } from './sinks.ts';
import { rawOptions } from '../config/option-reader.ts';
import { resolveFileSink, resolveFileSource, type FileSinkConfig, type FileSourceConfig } from '../config/file/config.ts';
import { resolveStdoutSink, type StdoutSinkConfig } from '../config/stdout/config.ts';
import { resolveDatagenSource, type DatagenSourceConfig } from '../config/datagen/config.ts';

export function fileSourceConfig(def: SourceDef): FileSourceConfig {
  return def.config?.connector === 'file' ? def.config : resolveFileSource(def.name, rawOptions(def.options));
}

export function fileSinkConfig(def: SinkDef): FileSinkConfig {
  return def.config?.connector === 'file' ? def.config : resolveFileSink(def.name, rawOptions(def.options));
}

export function stdoutSinkConfig(def: SinkDef): StdoutSinkConfig {
  return def.config?.connector === 'stdout' ? def.config : resolveStdoutSink(def.name, rawOptions(def.options));
}

export function datagenSourceConfig(def: SourceDef): DatagenSourceConfig {
  return def.config?.connector === 'datagen' ? def.config : resolveDatagenSource(def.name, rawOptions(def.options));
}
