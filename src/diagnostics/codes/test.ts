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
  'test-target-unsupported': def<{ target: string; why: string }>({
    severity: 'warning',
    title: 'a target cannot play the test; the test is skipped there',
    message: (p) => `the ${p.target} target cannot play this test: ${p.why}; the test is skipped on ${p.target}`,
    help: () => 'the test still runs on the runtime',
    explain: `A test is skipped on a target (and says so with this code) when the target cannot build the
pipeline at all (its own error diagnostics, e.g. \`clickhouse-session-window-unsupported\`), or when
none of the outputs the test expects is written by that target: a test that compares nothing there
would pass without checking anything. On Flink a test without \`end_of_input\` is skipped too: its
file sources end their input, which closes every window the runtime keeps open.`,
  }),
  'test-target-step-unsupported': def<{ target: string; step: string; why: string }>({
    severity: 'warning',
    title: 'a target cannot play a step of the test; the test is skipped there',
    message: (p) => `the ${p.target} target cannot play this \`${p.step}\` step: ${p.why}; the test is skipped on ${p.target}`,
    help: () => 'the test still runs on the runtime; split the part a target can play into a test of its own to check it there too',
    explain: `\`pipec test --target clickhouse\` plays a test on the ClickHouse target (its DDL in chdb). ClickHouse
has no scripted clock, no idle partitions of its own and no side output for late rows: a step it
cannot reproduce faithfully (\`idle_partition\`, \`advance_processing_time\` when a source has an idle
timeout, rows the runtime would find behind the watermark while the plan's ClickHouse DDL merges
late rows into their window, CDC changes inserted out of commit order around the rows a temporal
join matches them with) skips the test on that target rather than comparing rows that
differ by design. \`checkpoint\` and \`crash_and_restart\` are played as nothing happening: every
INSERT is committed on its own, so there is no uncommitted output to lose.

\`--target flink\` plays a test on the Flink script with each source a file read in the test's
order. Flink's watermark comes only from the rows (the spec's WATERMARK, one stream per source):
a \`watermark\` or \`idle_partition\` step, or rows in several partitions, that would make a row late
on one of the runtime and Flink but not on the other skip the test; so do \`crash_and_restart\`
(the job cannot be killed at a step), \`advance_processing_time\` where an idle timeout or state TTL
reads the clock, and a record the runtime would make a dead letter (Flink's json format fails the
job). \`checkpoint\` is played as nothing happening (the file sinks commit at the end of input).`,
  }),
  'test-target-output-unsupported': def<{ target: string; output: string; why: string }>({
    severity: 'warning',
    title: 'an expected output is not checked on a target',
    message: (p) => `'${p.output}' is not checked on the ${p.target} target: ${p.why}`,
    help: () => 'the runtime checks it; on this target only the outputs it writes are compared',
    explain: `The ClickHouse target writes only \`clickhouse\` sinks (tables in ClickHouse); Kafka, Iceberg, file and
stdout sinks, the late-row side outputs and the dead-letter output are the runtime's. Their
expectations are compared on the runtime and named with this code on ClickHouse. Expected
changelog rows of a ClickHouse sink are folded into the final row per key, which is what a
reader of the ReplacingMergeTree (FINAL) or of the aggregate's read view sees. The Flink target
writes every sink its script inserts into (each replaced by a file sink the runner reads back;
a changelog folded the same way), but no late-row side output and no dead letters.`,
  }),
  'test-target-engine-missing': def<{ target: string; detail: string }>({
    severity: 'error',
    title: "the engine a test target runs on is not available",
    message: (p) => `cannot run tests on the ${p.target} target: ${p.detail}`,
    help: (p) =>
      p.target === 'flink'
        ? 'install PyFlink (`pip install apache-flink==2.3.0`, Java 17) and point PIPEC_FLINK_PYTHON (or --flink-python) at that Python'
        : 'install chdb (`pip install chdb`) and point PIPEC_CHDB_PYTHON (or --chdb-python) at that Python',
    explain:
      'The ClickHouse test target runs the generated DDL on chdb, ClickHouse in-process, in a private temporary session per test: no server is touched. It needs a Python with the `chdb` package. The Flink test target runs the generated Flink script on PyFlink\'s local mini-cluster (PyPI `apache-flink` 2.x, which needs a Java runtime), every test of the run in one job. It needs a Python with `pyflink`.',
  }),
} as const;
