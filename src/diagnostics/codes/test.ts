// Diagnostic codes of `pipec test` test files (`<name>.pipe.test.yaml`, src/test-runner/).
import { def } from '../diagnostic.ts';

const listOf = (xs: string[]): string => (xs.length ? xs.join(', ') : '(none)');

export const testCodes = {
  'test-file-shape': def<{ detail: string }>({
    severity: 'error',
    title: 'test file does not have the test-file shape',
    message: (p) => `test file: ${p.detail}`,
    help: () => 'see docs/testing.md for the format: `spec:`, then `tests:` with `name`, `steps` and `expect` each',
    explain: `A \`.pipe.test.yaml\` file is checked against the test-file JSON Schema
(src/test-runner/test-file.schema.json) before anything runs. It holds \`spec:\` (the spec file,
relative to the test file) and \`tests:\`, a list of tests; each test has a \`name\`, \`steps\` in
order and \`expect\`ed rows per sink. A step is one of: \`rows\`, \`watermark\`,
\`advance_processing_time\`, \`idle_partition\`, \`checkpoint\`, \`crash_and_restart\`,
\`end_of_input\`. docs/testing.md shows each with an example.`,
  }),
  'test-spec-not-found': def<{ path: string }>({
    severity: 'error',
    title: 'the spec a test names does not exist',
    message: (p) => `the spec '${p.path}' named by this test file does not exist`,
    help: () => '`spec:` is relative to the test file, e.g. `spec: orders.pipe.sql` for a test next to it',
    explain: 'A test file runs one spec; `spec:` names it relative to the folder of the test file. The file is not there (renamed, moved, or a typo).',
  }),
  'test-unknown-sink': def<{ name: string; sinks: string[] }>({
    severity: 'error',
    title: 'expected rows for a sink the pipeline does not have',
    message: (p) => `'${p.name}' is not a sink of the pipeline`,
    help: (p) => `sinks: ${listOf(p.sinks)}; \`dead_letters\` holds the dead-letter output`,
    explain: `\`expect:\` lists rows per sink name (including sinks that receive late rows through
\`ON LATE TO\`), plus \`dead_letters\` for records that could not be decoded. A name that is no sink
of the spec is refused rather than ignored: the test would otherwise pass without checking anything.`,
  }),
  'test-unknown-source': def<{ name: string; sources: string[] }>({
    severity: 'error',
    title: 'step names a source the pipeline does not read',
    message: (p) => `'${p.name}' is not a source of the pipeline`,
    help: (p) => `sources: ${listOf(p.sources)}`,
    explain: 'A `rows`, `watermark` or `idle_partition` step feeds one source of the spec by name. The name given is not a `CREATE SOURCE` of the spec.',
  }),
  'test-unknown-column': def<{ column: string; where: string; columns: string[] }>({
    severity: 'error',
    title: 'unknown column in a test row',
    message: (p) => `'${p.column}' is not a column of ${p.where}`,
    help: (p) => `columns: ${listOf(p.columns)}; connector metadata is given as $key, $offset, $op or $<metadata name>`,
    explain: `Rows given to a source may name only its payload columns (metadata columns such as a
Kafka offset come from \`$offset\`, \`$key\` and the like); expected rows only the sink's columns (and
\`op\` for a sink that receives a changelog). A misspelt column would otherwise be silently NULL in
the input, or never compared in the output.`,
  }),
  'test-bad-kind': def<{ kind: string }>({
    severity: 'error',
    title: 'unknown changelog kind',
    message: (p) => `'${p.kind}' is not a changelog kind`,
    help: () => 'use +I (insert), -U (update before), +U (update after) or -D (delete)',
    explain: 'A changelog row kind is one of `+I`, `-U`, `+U`, `-D`, as in Flink. It is given as `$op` on rows into a CDC source and as `op` on expected rows of a sink that receives a changelog.',
  }),
  'test-bad-value': def<{ what: string; value: string; expected: string }>({
    severity: 'error',
    title: 'unreadable value in a test step',
    message: (p) => `${p.what}: cannot read '${p.value}' as ${p.expected}`,
    help: () => "times are 'YYYY-MM-DD HH:MM:SS[.fff]' (UTC); durations like '30 s', '5 min', '1 h'",
    explain: 'Event times (`watermark … at`, `start`) are timestamps in UTC; `advance_processing_time` takes a duration. The value given reads as neither.',
  }),
  'test-bad-partition': def<{ source: string; partition: number; partitions: number }>({
    severity: 'error',
    title: 'partition out of range',
    message: (p) => `source '${p.source}' has ${p.partitions} partition(s) in this test; partition ${p.partition} is not one of them`,
    help: (p) => `partitions count from 0; give \`partitions: { ${p.source}: ${p.partition + 1} }\` on the test for more`,
    explain: 'Each scripted source has a fixed number of partitions for the whole test (`partitions:` on the test, else one more than the highest partition its steps use). A partition that holds no rows still holds the watermark back until it is idle or ends, as a quiet Kafka partition does.',
  }),
} as const;
