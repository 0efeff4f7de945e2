// `@pipec/runtime/protobuf`: the Protobuf value format (protobufjs; plain or Confluent wire format).
import type { RuntimeModule } from '../connectors.ts';
import { ProtobufDecoder } from '../formats/protobuf.ts';

export const protobufModule: RuntimeModule = { name: 'protobuf', formats: { protobuf: (opts) => new ProtobufDecoder(opts) } };
