// `@pipec/runtime/avro`: the Avro value format (avsc; plain or Confluent wire format).
import type { RuntimeModule } from '../connectors.ts';
import { AvroDecoder } from '../formats/avro.ts';

export const avroModule: RuntimeModule = { name: 'avro', formats: { avro: (opts) => new AvroDecoder(opts) } };
