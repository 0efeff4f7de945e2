// The stdout sink connector: rows printed as a table or NDJSON (development, `pipec run`).
import { oneOf, COMMON_SINK_OPTIONS, type ConnectorDescriptor } from '../descriptor.ts';
import { resolveStdoutSink } from '../../../targets/runtime/lib/config/stdout/config.ts';

export const stdout: ConnectorDescriptor = {
  name: 'stdout',
  doc: 'Prints the rows it receives (aligned columns or one JSON object per line).',
  sink: {
    options: [...COMMON_SINK_OPTIONS, { key: 'format', type: oneOf('table', 'ndjson'), default: 'table', doc: 'Output layout.' }],
    resolve: (s) => resolveStdoutSink(s.name, s.options),
  },
  targets: {
    runtime: { sink: { module: 'stdout', binding: 'stdoutModule' } },
    flink: { sink: 'print' },
  },
};
