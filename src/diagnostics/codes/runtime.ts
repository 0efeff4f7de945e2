// Diagnostic codes of the runtime target. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const runtimeCodes = {
  'runtime-unsupported': def<{ what: string; name: string }>({
    severity: 'error',
    title: 'not available in the runtime target',
    message: (p) => `the runtime target cannot run ${p.what} (used by '${p.name}')`,
    help: () => 'run this part with the ClickHouse target, or use a file or datagen source and a stdout or file sink for a local run',
    explain: `The Node.js runtime that \`pipec run\` and the generated bundle execute supports the
\`file\` (NDJSON, CSV, Parquet) and \`datagen\` source connectors, the \`stdout\` and \`file\`
(NDJSON, Parquet) sink connectors, and the operators filter, project, window aggregates
(TUMBLE, HOP, CUMULATE, SESSION), GROUP BY with EMIT CHANGES, and interval joins.

A pipeline that uses anything else (for example a Kafka source in a build without the Kafka
connector, or a temporal join) cannot be run by this target. pipec says so instead of running
a pipeline that would silently skip part of its work.

Fix: for a local run, replace the source with a \`file\` source over sample data, or build the
pipeline for a target that supports the feature.`,
  }),
  'runtime-missing-env': def<{ variable: string }>({
    severity: 'error',
    title: 'environment variable not set at run time',
    message: (p) => `environment variable ${p.variable} is not set`,
    help: (p) => `set ${p.variable} (or choose a profile that defines it) before running the pipeline`,
    explain: `An option of the pipeline refers to \`\${NAME}\`, and the generated program reads
the variable when it starts (generated files never hold its value). A missing variable is an
error rather than an empty string: an empty broker list or file path would fail later in a
far more confusing way.

Fix: export the variable, or pass \`--profile\` with a profile of \`pipec.yaml\` that sets it.`,
  }),
} as const;
