// Chooses a source's value decoder once, from its `format` and `schema` options: JSON,
// Debezium JSON, Avro or Protobuf (Confluent wire format with a registry, plain bytes with
// a `file:` schema). JSON is built in; Avro and Protobuf come from the run's runtime modules
// (`@pipec/runtime/avro`, `/protobuf`), so a bundle carries them only when its plan reads them.
import type { SourceDef } from '../io/source-types.ts';
import { DebeziumJsonDecoder } from './debezium.ts';
import { JsonDecoder } from './json.ts';
import { timestampColumns } from './json-fields.ts';
import type { FormatDecoder } from './types.ts';
import type { FormatFactory } from '../connectors.ts';
import { guardFormat } from '../io/guarded-decode.ts';

export { CHANGES, FAIL, FormatError, SKIP, type ChangeRecords, type Decoded, type FormatDecoder, type WhereOf } from './types.ts';

/** Thrown for a format the source cannot read or a missing setting; the runner reports it (exit 2). */
export class FormatSetupError extends Error {}

/**
 * The decoder of `def`'s message values. `env` supplies `PIPEC_SCHEMA_REGISTRY_URL` (user info
 * in the URL is Basic auth) for Avro and Protobuf values in the Confluent wire format.
 */
export function createFormatDecoder(def: SourceDef, env: Record<string, string | undefined>, formats: Record<string, FormatFactory> = {}): FormatDecoder {
  // Whatever a format throws on one value makes that value a dead letter (guarded-decode.ts).
  return guardFormat(chooseFormatDecoder(def, env, formats));
}

function chooseFormatDecoder(def: SourceDef, env: Record<string, string | undefined>, formats: Record<string, FormatFactory>): FormatDecoder {
  const format = def.format ?? 'json';
  switch (format) {
    case 'json':
      return new JsonDecoder(def.reads, timestampColumns(def.columns));
    case 'debezium-json':
      return new DebeziumJsonDecoder();
    case 'avro':
    case 'protobuf': {
      const make = Object.hasOwn(formats, format) ? formats[format] : undefined;
      if (!make) throw new FormatSetupError(`format '${format}' is not available in this runtime build (rebuild the pipeline)`);
      // Plain values of a `file:` schema, or the Confluent wire format: decided by the compiler
      // (the physical plan's format), never re-read from the options here.
      if (def.formatWire === undefined) throw new FormatSetupError(`source '${def.name}': format '${format}' without its resolved wire format (rebuild the pipeline)`);
      const plain = def.formatWire === 'plain';
      const schemaText = def.schemaText ?? null;
      let registryUrl: string | null = null;
      if (!plain) {
        registryUrl = env.PIPEC_SCHEMA_REGISTRY_URL ?? null;
        if (!registryUrl) throw new FormatSetupError(`format '${format}' reads writer schemas from the schema registry: set PIPEC_SCHEMA_REGISTRY_URL`);
      } else if (schemaText === null) {
        throw new FormatSetupError(`format '${format}' with a file: schema needs the schema embedded by the compiler (rebuild the pipeline)`);
      }
      try {
        const opts = { columns: def.columns, schemaText, registryUrl };
        return make(opts);
      } catch (e) {
        throw new FormatSetupError(`the ${format === 'avro' ? 'Avro' : 'Protobuf'} schema cannot be read: ${(e as Error).message}`);
      }
    }
    default:
      throw new FormatSetupError(`format '${format}' is not a Kafka value format (json, avro, protobuf or debezium-json)`);
  }
}
