// Every runtime module by name, for running a plan in this process (`pipec run`, tests): the
// CLI already carries every connector, so it imports them all here. Bundles never import this
// file: a generated module imports only the modules its plan uses (src/connectors/runtime-modules.ts).
import type { RuntimeModule } from './lib/connectors.ts';
import { avroModule } from './lib/modules/avro.ts';
import { clickhouseModule } from './lib/modules/clickhouse.ts';
import { datagenModule } from './lib/modules/datagen.ts';
import { fileSinkModule } from './lib/modules/file-sink.ts';
import { fileSourceModule } from './lib/modules/file-source.ts';
import { icebergModule } from './lib/modules/iceberg.ts';
import { kafkaModule } from './lib/modules/kafka.ts';
import { postgresCdcModule } from './lib/modules/postgres-cdc.ts';
import { protobufModule } from './lib/modules/protobuf.ts';
import { stdoutModule } from './lib/modules/stdout.ts';

export const ALL_MODULES: readonly RuntimeModule[] = [
  avroModule,
  clickhouseModule,
  datagenModule,
  fileSinkModule,
  fileSourceModule,
  icebergModule,
  kafkaModule,
  postgresCdcModule,
  protobufModule,
  stdoutModule,
];
