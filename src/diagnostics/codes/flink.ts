// Diagnostic codes of the Flink SQL target (targets/flink/). Each says how Flink's behaviour
// differs from the runtime's and what the emitted script does instead; never a silent change.
// All are warnings: a part Flink cannot run is left out of the script (with a comment there), so
// `pipec build` of every target still works for pipelines that never go to Flink, and
// `pipec check --target flink --deny-warnings` is the gate for those that do.
import { def } from '../diagnostic.ts';

export const flinkCodes = {
  'flink-late-side-output': def<{ view: string; sink: string }>({
    severity: 'warning',
    title: 'Flink SQL has no side output for late events',
    message: (p) => `Flink SQL drops the late events of '${p.view}'; the late sink '${p.sink}' receives nothing on Flink`,
    help: () => "keep ON LATE TO on the runtime target, or raise the watermark delay so fewer events are late; on Flink late events are dropped (Flink's numLateRecordsDropped metric counts them)",
    explain:
      "The runtime sends events behind the watermark to the `ON LATE TO` sink with `late_by_ms`. Flink's DataStream API has side outputs for late data, but Flink SQL's window table-valued functions and interval joins drop late rows without a way to route them. The script keeps the late sink's table (so the statement set stays valid) but inserts nothing into it; the view's on-time rows are the same as the runtime's.",
  }),
  'flink-allowed-lateness': def<{ view: string; lateness: string }>({
    severity: 'warning',
    title: 'Flink SQL windows have no allowed lateness',
    message: (p) => `'${p.view}' allows ${p.lateness} of lateness; Flink SQL window functions fire once, when the watermark passes the window end, and drop later rows`,
    help: () => 'add the lateness to the watermark delay instead (the window then fires later on both targets), or keep this view on the runtime target',
    explain:
      'With `ALLOWED LATENESS`, the runtime keeps a fired window for that long and emits an updated row for each late event. Flink SQL window table-valued functions emit one final row per window at the watermark and have no lateness setting (the legacy group-window `table.exec.emit.allow-lateness` option is experimental and not applied to window TVFs). The script emits the window without lateness: late events are dropped, so counts can be lower than the runtime\'s.',
  }),
  'flink-window-emit-changes': def<{ view: string }>({
    severity: 'warning',
    title: 'EMIT CHANGES on a window cannot run on Flink SQL',
    message: (p) => `'${p.view}' emits every change of an open window; Flink SQL window functions emit only the final row of each window, so the Flink script leaves the view out (and what reads it)`,
    help: () => 'use EMIT ON WINDOW CLOSE for this view on Flink, or a GROUP BY over FLOOR(ts TO ...) with EMIT CHANGES (an updating aggregate Flink does run)',
    explain:
      'The runtime\'s `EMIT CHANGES` on a window sends an updated row after each event (an upsert stream keyed by the group keys and window_start). Flink SQL window table-valued functions have no early firing; the experimental early-fire options apply only to legacy group windows. The nearest faithful Flink form is an updating GROUP BY on the truncated time, which changes the state bound, so pipec does not substitute it silently.',
  }),
  'flink-idle-watermark': def<{ sources: string }>({
    severity: 'warning',
    title: 'Flink does not advance the watermark when every input is idle',
    message: (p) => `when every partition of ${p.sources} is idle, the runtime advances the watermark with processing time; Flink holds it, so the last windows fire only when new events arrive`,
    help: () => 'send heartbeat events, or accept that the last windows of a quiet period close later on Flink',
    explain:
      "`idle_timeout` becomes Flink's `table.exec.source.idle-timeout`: an idle split stops holding the watermark back, as on the runtime. But when every split is idle, pipec moves the watermark forward with processing time minus the delay (so windows of a quiet stream still close), while Flink keeps the last watermark until some split produces an event.",
  }),
  'flink-idle-timeout-global': def<{ chosen: string; values: string }>({
    severity: 'warning',
    title: 'Flink has one idle timeout for all sources',
    message: (p) => `sources set different idle timeouts (${p.values}); Flink's table.exec.source.idle-timeout is one setting, the script uses the smallest, ${p.chosen}`,
    help: () => 'give every source the same idle_timeout to get the same behaviour on both targets',
    explain: "The runtime applies each source's `idle_timeout` to its own partitions. Flink SQL has one session option, `table.exec.source.idle-timeout`, for every source of the job. The smallest value is the one that never holds a watermark back longer than the spec allows.",
  }),
  'flink-approx-count-distinct': def<{ view: string }>({
    severity: 'warning',
    title: 'APPROX_COUNT_DISTINCT is exact on Flink',
    message: (p) => `'${p.view}' uses APPROX_COUNT_DISTINCT, which Flink SQL has only in batch mode; the script counts exactly with COUNT(DISTINCT ...)`,
    help: () => 'expect exact (slightly different) counts on Flink and more state per group',
    explain: 'The runtime estimates distinct counts with a HyperLogLog sketch (a bounded few kilobytes per group). Flink SQL offers APPROX_COUNT_DISTINCT only for batch jobs, so the streaming script uses COUNT(DISTINCT ...): exact values, with state that grows with the number of distinct values.',
  }),
  'flink-function-unsupported': def<{ what: string }>({
    severity: 'warning',
    title: 'an expression has no Flink SQL form',
    message: (p) => `the Flink target cannot express ${p.what}; the Flink script leaves the operator out (and what reads it)`,
    help: () => 'rewrite the expression with functions both targets have (see `pipec explain flink-function-unsupported`), or keep this pipeline on the runtime target',
    explain: 'Most of pipec\'s functions are Flink SQL functions, and the Flink target emits them as they are. Where Flink has no function with the same result (for example a difference of two timestamps in milliseconds: Flink\'s TIMESTAMPDIFF counts whole units), the target reports the operator instead of emitting an approximation.',
  }),
  'flink-name-escaped': def<{ name: string }>({
    severity: 'warning',
    title: 'a name holds characters Flink SQL cannot quote',
    message: (p) => `${p.name} holds a line terminator, control or bidi character; the Flink script spells it with \\uXXXX escapes, so it is another name on Flink`,
    help: () => 'rename it to printable characters if this pipeline is to run on Flink',
    explain: "Flink SQL identifiers and string literals have no escape sequences, and such characters written raw would let a name end a comment or read differently than it parses. The script spells each one as `\\uXXXX`, the same way at every use, so the script is valid; but a source or sink column renamed that way no longer matches its field in the records.",
  }),
  'flink-dead-letters': def<{ source: string }>({
    severity: 'warning',
    title: 'Flink has no dead-letter output',
    message: (p) => `records of '${p.source}' that cannot be decoded go to the dead-letter file on the runtime; on Flink the job fails on the first such record`,
    help: () => 'keep bad records out of the topic, or run the source on the runtime target; the script does not set ignore-parse-errors (which would drop them silently)',
    explain: "pipec never drops a record silently: the runtime writes undecodable records with the reason to its dead-letter output. Flink's formats either fail the job on a bad record (the default, kept here) or skip it without a trace (`json.ignore-parse-errors`). Failing is the faithful choice: nothing is lost, and the job restarts from its last checkpoint once the record is dealt with.",
  }),
  'flink-format-unsupported': def<{ source: string; format: string; reason: string }>({
    severity: 'warning',
    title: 'Flink SQL cannot decode this format as the spec says',
    message: (p) => `the Flink target cannot read '${p.source}' as ${p.format}: ${p.reason}; the Flink script leaves it out (and what reads it)`,
    help: () => "use format = 'json', 'debezium-json', or 'avro' with schema = 'registry:<subject>' (avro-confluent)",
    explain: "Flink's `protobuf` format decodes with a Java class generated from the .proto file, which has to be compiled and shipped with the job; plain Avro without a registry needs the writer schema by other means. pipec reports the source instead of emitting a table that cannot start.",
  }),
  'flink-datagen-values': def<{ source: string; columns: string }>({
    severity: 'warning',
    title: 'Flink datagen generates other random values',
    message: (p) => `random and choice columns of '${p.source}' (${p.columns}) get other values on Flink than from pipec's seeded generator`,
    help: () => 'use the file connector with the same input on both targets when the rows must match',
    explain: "Sequence columns are generated identically (timestamps as computed columns over the row number). Random and choice columns come from Flink's own random generator, which has no seed option, so the rows differ from `pipec run` while having the same ranges.",
  }),
  'flink-iceberg-partition-transform': def<{ sink: string; table: string }>({
    severity: 'warning',
    title: 'Flink DDL cannot declare this Iceberg partitioning',
    message: (p) => `Flink SQL can create Iceberg tables only with identity partitions; the script expects '${p.table}' (sink '${p.sink}') to exist already`,
    help: () => 'create the table first: `pipec run` creates it from the same spec, or apply the table spec in generated/<pipeline>/iceberg/ with Spark or pyiceberg',
    explain: "Flink's Iceberg catalog turns `PARTITIONED BY (col)` into identity partitions only; bucket, truncate and time transforms cannot be declared from Flink SQL. For such a sink the script writes into the existing table (Flink's Iceberg sink keeps the table's own partition spec) and does not create it.",
  }),
  'flink-temporal-join-versioned': def<{ view: string; right: string }>({
    severity: 'warning',
    title: 'the right side of a temporal join must be a versioned table on Flink',
    message: (p) => `'${p.view}' joins FOR SYSTEM_TIME AS OF ${p.right}; Flink needs a source table with a primary key and a watermark there, so the Flink script leaves the join out (and what reads it)`,
    help: () => 'join the CDC source itself and give it a WATERMARK (on a time column of its rows, e.g. updated_at), then filter or project after the join',
    explain: 'Flink SQL event-time temporal joins look up the version of the right side valid at the left row\'s time; the right side must be a versioned table (a changelog source with a primary key and a watermark, or a deduplicating view Flink can prove versioned). A CDC source without a WATERMARK is versioned by the runtime\'s own clock; Flink has no such clock, so its planner refuses the join and the script leaves it out.',
  }),
  'flink-connector-unavailable': def<{ what: string; connector: string; reason: string }>({
    severity: 'warning',
    title: 'no release of the Flink connector runs on Flink 2.x',
    message: (p) => `${p.what} needs Flink's ${p.connector}, which does not run on Flink 2.x: ${p.reason}; the script declares the table as that connector documents it, but the job cannot start on Flink 2.3 until such a release exists`,
    help: () => 'keep this source or sink on the runtime target (or the ClickHouse target), or run the script on a Flink whose connector release exists',
    explain:
      "The Flink target is written and tested against Flink 2.3 with each connector's newest Flink 2.x release from Maven Central (test/services/flink/pom.xml). Two connectors pipec maps onto have none: Flink CDC (3.5.0, the newest) is built on Flink 1.20's SourceFunction, which Flink 2.0 removed, so `postgres-cdc` fails to create its source; and Flink's JDBC connector for Flink 2.x (flink-connector-jdbc-core 4.0.0-2.0) has no ClickHouse dialect, so a `jdbc:clickhouse:` table fails with 'Could not find any jdbc factory'. The script still declares the table with the options that connector documents, so it is ready once a release exists, and this warning says it will not start before.",
  }),
  'flink-kafka-key-text': def<{ sink: string; column: string; type: string }>({
    severity: 'warning',
    title: "a Kafka key of this type may be spelled differently on Flink",
    message: (p) => `sink '${p.sink}' is keyed by '${p.column}' (${p.type}); the runtime writes the key as the value's JSON text, the Flink script as CAST(${p.column} AS STRING), which can spell this type differently`,
    help: () => 'key the sink by a STRING, integer, BOOLEAN or DECIMAL column (or CAST the key to STRING in the query) for the same key bytes on both targets',
    explain: "The runtime's key of a one-column Kafka sink is the column's value as the JSON encoder writes it, without quotes. The Flink script writes the key with the raw format from a hidden STRING column, CAST from the key column: for strings, integers, booleans and decimals the two texts are equal; for timestamps, dates and floating-point numbers Flink's CAST may format the value otherwise (fraction digits, exponent), so consumers that look messages up by key may not find them.",
  }),
  'flink-file-sink-changes': def<{ sink: string; changelog: string; flink: string }>({
    severity: 'warning',
    title: "Flink's filesystem sink writes changes in another layout",
    message: (p) => `file sink '${p.sink}' receives a ${p.changelog} changelog, which the runtime writes as rows with an op column; ${p.flink}`,
    help: () => 'read the Flink files as Debezium JSON, send the changes to an upsert sink (Kafka with a key, ClickHouse, Iceberg), or keep this sink on the runtime target',
    explain: "The runtime's file sink writes every change of an updating view (EMIT CHANGES, GROUP BY) as a flat row with its `op` ('+I', '-U', '+U', '-D'). Flink's filesystem connector takes a changelog only through a changelog format (its planner refuses an updating INSERT into a plain json or csv table: 'doesn't support consuming update changes'), so an NDJSON file sink becomes a `debezium-json` table: each change is an object with `before`, `after` and `op` ('c', 'u', 'd'), the same changes in another layout. Parquet has no changelog format in Flink, so a Parquet file sink of an updating view is left out of the script.",
  }),
  'flink-sink-delivery': def<{ sink: string; runtime: string; flink: string }>({
    severity: 'warning',
    title: 'the sink\'s delivery guarantee differs on Flink',
    message: (p) => `sink '${p.sink}' is ${p.runtime} on the runtime and ${p.flink} on Flink`,
    help: () => 'check what the consumer of this sink tolerates (duplicates after a restart, or a different file layout)',
    explain: "Flink's connectors have their own guarantees: the JDBC sink (used for ClickHouse) re-sends rows after a restart unless the table deduplicates them (pipec's ClickHouse tables are ReplacingMergeTree where keys exist); the print sink has none; the filesystem sink is exactly-once but writes part files into a directory named by the path, where the runtime writes one file.",
  }),
};
