// Diagnostic codes of the ClickHouse target (targets/clickhouse/). Each entry: severity, title, message, help, long explanation.
// Warnings here say exactly how ClickHouse's behaviour differs from the runtime's and what the emitted DDL does instead.
import { def } from '../diagnostic.ts';

export const clickhouseCodes = {
  'clickhouse-source-connector-unsupported': def<{ source: string; connector: string }>({
    severity: 'warning',
    title: 'ClickHouse cannot read this source connector',
    message: (p) => `the ClickHouse target cannot read the '${p.connector}' source '${p.source}'; it emits a plain MergeTree table you insert into instead`,
    help: (p) => `load '${p.source}' with INSERT INTO (clickhouse-client, an ingestion job), or read it from a Kafka topic`,
    explain:
      'ClickHouse has table engines for Kafka topics (and pipec reads PostgreSQL CDC through its Debezium topic), but none that follows a local file glob or generates rows like `datagen`. Rather than drop the source, the ClickHouse target emits the nearest form: a plain `MergeTree` table with the source\'s columns, and every materialized view downstream fires when rows are inserted into it. Loading it is up to you, e.g. `INSERT INTO db.src FORMAT JSONEachRow` from the file.',
  }),
  'clickhouse-format-unsupported': def<{ source: string; format: string; reason: string }>({
    severity: 'error',
    title: 'ClickHouse cannot decode this source format',
    message: (p) => `the ClickHouse Kafka engine cannot decode '${p.format}' for source '${p.source}': ${p.reason}`,
    help: () => "use format = 'json', 'avro' with schema = 'registry:<subject>', or 'protobuf' with schema = 'file:<x>.proto#<Message>'",
    explain:
      "The Kafka engine decodes messages with ClickHouse input formats: JSON lines (`JSONEachRow`), Confluent-framed Avro (`AvroConfluent`, which needs a schema registry) and Protobuf (`Protobuf`, which needs the .proto file in ClickHouse's format_schema_path). Plain Avro without a registry, Confluent-framed Protobuf, CSV and Parquet messages have no faithful equivalent, so no table is emitted for the source.",
  }),
  'clickhouse-session-window-unsupported': def<{ gap: string }>({
    severity: 'error',
    title: 'SESSION windows cannot be expressed in ClickHouse',
    message: (p) => `ClickHouse materialized views cannot build SESSION windows (gap ${p.gap}): a row may merge two sessions that were already stored apart`,
    help: () => 'use the runtime target for this view, or a TUMBLE window of about the session gap as the nearest ClickHouse form',
    explain:
      'A session window grows while rows arrive within the gap, and one late row can merge two sessions into one. A ClickHouse materialized view sees one inserted block at a time and can only add to rows keyed in advance (group key + window start); it cannot move rows of two earlier sessions into a new key. The nearest form is a TUMBLE window (fixed buckets) or a plain table of events queried with a window function at read time; pipec emits neither silently because both change the result.',
  }),
  'clickhouse-operator-unsupported': def<{ operator: string; reason: string }>({
    severity: 'error',
    title: 'plan operator not expressible in ClickHouse',
    message: (p) => `the ClickHouse target cannot express this ${p.operator}: ${p.reason}`,
    help: () => 'build this pipeline with the runtime target, or restructure the view so that aggregation is the last step before the sink',
    explain:
      'ClickHouse runs a pipeline as materialized views that fire on inserts. An aggregate is stored as partial states that are merged only when read, so nothing can fire downstream of it: a window over the output of another aggregation, or a join or union whose input is an aggregate, has no insert to react to. Likewise an aggregate over a CDC changelog would have to retract the old version of an updated row, and a materialized view can only add. pipec reports the operator instead of emitting DDL that computes something else.',
  }),
  'clickhouse-no-watermark': def<{ view: string; delay: string }>({
    severity: 'warning',
    title: 'ClickHouse has no watermark: EMIT ON WINDOW CLOSE becomes a read-time filter',
    message: (p) => `'${p.view}': ClickHouse has no watermark; the read view shows a window once the largest event time seen (minimum over partitions), minus ${p.delay}, passes its end, and nothing is pushed when it closes`,
    help: () => 'query the read view (it filters closed windows); a consumer that needs a push on close must poll it',
    explain:
      "A materialized view runs when rows are inserted, never when time passes, so no row is emitted at window close. pipec stores every window's partial aggregates and adds a read view that shows only the windows a watermark would have closed: the watermark is, per Kafka partition, the largest event time inserted so far, minimum over partitions, minus the watermark delay (and the window's allowed lateness). With `idle_timeout`, a partition without inserts for that long stops holding it back, and when all are idle it follows the clock minus the delay, as in the runtime; without it, a quiet topic never closes its last window. The value is computed when the view is read, so it can differ from the runtime's watermark at the same moment.",
  }),
  'clickhouse-late-rows-merge': def<{ view: string; late: string }>({
    severity: 'warning',
    title: 'late rows merge into windows that were already shown',
    message: (p) => `'${p.view}': rows later than the allowed lateness are merged into their old window in ClickHouse (the plan says ${p.late}), so a closed window's result can still change`,
    help: () => 'keep the allowed lateness above the real delay of the topic, or use the runtime target for exact late-row handling',
    explain:
      'In the runtime a row whose window is closed goes to the `ON LATE` sink or is dropped, and the emitted row never changes. A ClickHouse materialized view aggregates every inserted row into the partial states of its window, whatever its age, and the read view merges them when queried; a closed window that receives a late row shows the new total. `ON LATE TO` receives nothing from the ClickHouse DDL.',
  }),
  'clickhouse-mv-join-left-only': def<{ left: string; right: string }>({
    severity: 'warning',
    title: 'a materialized view over a join fires only on the left table',
    message: (p) => `the materialized view over this join fires only on inserts into '${p.left}'; rows arriving in '${p.right}' later never produce a match`,
    help: (p) => `make sure '${p.right}' is loaded before the matching '${p.left}' rows arrive, or use the runtime target for a symmetric join`,
    explain:
      "A ClickHouse materialized view is an insert trigger on the first table of its FROM clause. For a join, each block inserted into the left table is joined with the right table as it is at that moment; inserting into the right table triggers nothing. The runtime's interval join matches rows whichever side arrives first. The emitted DDL keeps the join's keys and time bounds, but a right row that arrives after its left partner is never joined.",
  }),
  'clickhouse-temporal-join-latest': def<{ right: string }>({
    severity: 'warning',
    title: 'a temporal join in ClickHouse reads the latest version, not the version as of the event',
    message: (p) => `ClickHouse joins each row with the version of '${p.right}' current at insert time, not the version valid at the row's event time`,
    help: () => 'acceptable when the changelog changes slowly; otherwise use the runtime target',
    explain:
      'FOR SYSTEM_TIME AS OF joins each row with the version of the changelog row that was valid at the row\'s event time. ClickHouse keeps only the latest version after merges (ReplacingMergeTree), and the materialized view reads it with FINAL when the row is inserted: an event replayed or delayed past an update is joined with the newer version.',
  }),
  'clickhouse-at-least-once-duplicates': def<{ sink: string; table: string; engine: string }>({
    severity: 'warning',
    title: 'at-least-once delivery into a ClickHouse table that cannot deduplicate',
    message: (p) => `sink '${p.sink}' writes into ${p.engine} table '${p.table}'; the Kafka engine delivers at least once, so a redelivered block is stored (or counted) twice`,
    help: (p) =>
      p.engine === 'AggregatingMergeTree'
        ? 'accept over-counting after a ClickHouse restart or rebalance, keep to idempotent aggregates (MIN, MAX, COUNT DISTINCT), or use the runtime target'
        : 'give the sink an upsert key (ReplacingMergeTree) or accept duplicates after a ClickHouse restart or consumer rebalance',
    explain:
      "The Kafka engine commits offsets after the block is written; a crash or rebalance between write and commit redelivers the block. A MergeTree table stores it twice; an AggregatingMergeTree counts it twice (sum, count and avg change; min, max and distinct counts do not). Only a ReplacingMergeTree keyed by the row's identity absorbs the duplicate. The runtime target avoids this with insert deduplication tokens.",
  }),
  'clickhouse-populate-risk': def<{ table: string }>({
    severity: 'warning',
    title: 'materialized view over a table that may already hold rows',
    message: (p) => `materialized views over '${p.table}' are created without POPULATE: rows already in it are not processed`,
    help: (p) => `after creating the views, backfill once with INSERT INTO <target> SELECT ... FROM ${p.table}`,
    explain:
      'A materialized view only sees rows inserted after it is created. POPULATE would backfill existing rows, but rows inserted while it runs are lost, so pipec never emits it. When the view reads a stored table (a CDC table, a table you insert into) that already holds data, backfill it once by hand with INSERT ... SELECT, before new rows arrive or with a filter on their position.',
  }),
  'clickhouse-order-by-missing-key': def<{ sink: string; missing: string }>({
    severity: 'warning',
    title: 'ORDER BY of an aggregating or upsert sink lacks part of the key',
    message: (p) => `sink '${p.sink}': ORDER BY lacks ${p.missing}; rows of different groups would be merged into one, so pipec appends ${p.missing} to ORDER BY`,
    help: (p) => `add ${p.missing} to the sink's order_by`,
    explain:
      'AggregatingMergeTree and ReplacingMergeTree merge rows whose ORDER BY key is equal. If the key lacks a group key column (or window_start, or the upsert key), rows of different groups collapse into one row during background merges and the results become wrong at an unpredictable time. pipec appends the missing columns to ORDER BY so the table stays correct, and warns so the option can be fixed.',
  }),
  'clickhouse-nullable-composite': def<{ column: string; paths: string }>({
    severity: 'warning',
    title: 'ClickHouse cannot store NULL for an array, map or row',
    message: (p) => `column '${p.column}': ClickHouse has no Nullable array, map or tuple; NULL at ${p.paths} is stored as an empty value`,
    help: () => 'declare the column NOT NULL, or treat empty as absent downstream',
    explain:
      'ClickHouse allows Nullable(...) only around scalar types. An ARRAY, MAP or ROW that may be NULL is stored as its empty value (empty array or map, tuple of defaults), and map keys cannot be NULL at all. A query that distinguishes NULL from empty gets a different answer from ClickHouse than from the runtime.',
  }),
  'clickhouse-first-last-by-event-time': def<{ fn: string; time: string }>({
    severity: 'warning',
    title: 'FIRST_VALUE/LAST_VALUE pick by event time in ClickHouse',
    message: (p) => `${p.fn} is computed as the value with the ${p.fn === 'FIRST_VALUE' ? 'smallest' : 'largest'} '${p.time}' in ClickHouse, not by arrival order`,
    help: () => 'the two agree when rows arrive in event-time order; break ties explicitly if they matter',
    explain:
      'The runtime keeps the first (last) non-NULL value in arrival order. ClickHouse merges partial states in no fixed order, so pipec uses argMin/argMax over the window\'s event-time column: the value of the earliest (latest) event. Out-of-order arrivals and equal event times can give a different value.',
  }),
  'clickhouse-state-ttl-ignored': def<{ view: string; ttl: string }>({
    severity: 'warning',
    title: 'state_ttl has no effect in ClickHouse',
    message: (p) => `'${p.view}': ClickHouse keeps every group's aggregate state forever; state_ttl = ${p.ttl} is not applied`,
    help: () => 'add a TTL to the sink table (option ttl) to delete old groups on disk',
    explain:
      'In the runtime, state_ttl forgets a group that saw no row for the TTL, and a later row starts a new aggregate. ClickHouse stores the partial states in an AggregatingMergeTree and merges every new row into them however old the group is.',
  }),
  'clickhouse-name-collision': def<{ sink: string; table: string }>({
    severity: 'error',
    title: 'ClickHouse sink table collides with a generated object',
    message: (p) => `sink '${p.sink}': table '${p.table}' is also the name of a table or view this pipeline creates`,
    help: () => "choose the DDL's table with the sink's ddl_table option, e.g. ddl_table = 'analytics.<name>'",
    explain:
      "The ClickHouse DDL creates a sink's table in the pipeline's own database (named after the sink, or as `ddl_table` says), where pipec also creates one table or view per source and view and their helper tables. Every statement is CREATE ... IF NOT EXISTS, so the second object of the same name would silently not be created and the sink would write into the wrong table. pipec reports the collision instead.",
  }),
  'clickhouse-ddl-table-shared': def<{ sink: string; table: string }>({
    severity: 'warning',
    title: "the ClickHouse DDL writes the runtime sink's table",
    message: (p) => `sink '${p.sink}': ddl_table '${p.table}' is also the table the runtime's ClickHouse sink writes; running both doubles every row`,
    help: () => 'run only one of them against this table, or leave ddl_table unset (the DDL then writes <pipeline>.<sink>)',
    explain:
      "A ClickHouse sink has two writers: `pipec run` (the runtime's ClickHouse sink) inserts the sink's rows into its `table`, and the ClickHouse target's DDL (`clickhouse.sql`) makes ClickHouse compute the same rows itself into `ddl_table`, by default `<pipeline>.<sink>`. With both pointing at one table, every row arrives twice (and the DDL's table holds partial aggregate states where the runtime writes final rows). Setting `ddl_table` to the runtime's table is right only when the runtime never runs this sink; pipec warns so the choice is deliberate.",
  }),
  'clickhouse-reserved-column': def<{ source: string; column: string }>({
    severity: 'error',
    title: 'column name reserved by the ClickHouse Kafka engine',
    message: (p) => `source '${p.source}' has a column named '${p.column}', which the ClickHouse Kafka engine uses for a virtual column`,
    help: (p) => `rename '${p.column}' in the source's column list`,
    explain:
      'The Kafka engine exposes message metadata as virtual columns (`_topic`, `_partition`, `_offset`, `_timestamp_ms`, `_key`, `_error`, `_raw_message`); pipec reads them for metadata columns and for the dead-letter table. A payload column of the same name would hide them.',
  }),
} as const;
