// `@pipec/runtime/stdout`: the `stdout` sink (a table or NDJSON on standard output).
import type { RuntimeModule } from '../connectors.ts';
import { StdoutSink } from '../io/sinks.ts';

export const stdoutModule: RuntimeModule = { name: 'stdout', sinks: { stdout: (def, ctx) => new StdoutSink(def, ctx.stdout) } };
