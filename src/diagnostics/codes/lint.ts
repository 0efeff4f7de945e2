// Diagnostic codes of the lint phase (src/lint/): warnings about plans that compile but are the
// seeds of production outages. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const lintCodes = {
  'watermark-without-idle-timeout': def<{ source: string; partitioning: string }>({
    severity: 'warning',
    title: 'watermark without idle_timeout on a multi-partition source',
    message: (p) => `source '${p.source}' has a watermark but no idle_timeout, and it reads ${p.partitioning}: one idle partition stops every window from closing`,
    help: (p) => `add idle_timeout = '30 s' (or what fits your traffic) to the WITH options of '${p.source}'`,
    explain: `The watermark of a source is the minimum over its partitions. When one partition receives no
records (a quiet Kafka partition, a file that is not being appended to, a datagen split that
finished), its watermark stays where it was, and so does the source's: windows never close,
EMIT ON WINDOW CLOSE views emit nothing, and state grows.

With \`idle_timeout\`, a partition with no record for that long stops holding the watermark
back, and when all partitions are idle the watermark advances with processing time minus the
declared delay, so a quiet topic still closes its windows.

Sources with several partitions: every Kafka topic, a \`file\` source whose \`path\` is a glob,
and a \`datagen\` source with \`partitions\` > 1.

Fix:
  CREATE SOURCE orders (...) WITH (connector = 'kafka', topic = 'orders', idle_timeout = '30 s');`,
  }),

  'window-late-unspecified': def<{ owner: string }>({
    severity: 'warning',
    title: 'window aggregate without an ON LATE choice',
    message: (p) => `the window aggregate of ${p.owner} does not say what happens to events later than its allowed lateness: they are dropped silently`,
    help: () => 'add ON LATE DROP (counted in a metric) or ON LATE TO <sink> (kept, with a late_by_ms column)',
    explain: `An event whose window has already been emitted (the watermark passed window_end plus the
allowed lateness) cannot change the result any more. pipec never drops such events without a
word: say what you want.

  ... EMIT ON WINDOW CLOSE ALLOWED LATENESS INTERVAL '30' SECOND ON LATE DROP;
  ... ON LATE TO orders_late;   -- a sink declared without FROM receives the late events

ON LATE DROP counts the dropped events in the \`late_events\` metric. ON LATE TO sends them,
unchanged and with a \`late_by_ms\` column, to the named sink, where they can be reconciled.`,
  }),

  'join-late-unspecified': def<{ owner: string }>({
    severity: 'warning',
    title: 'interval join without an ON LATE choice',
    message: (p) => `the interval join of ${p.owner} does not say what happens to rows behind the watermark: they join nothing and are dropped silently`,
    help: () => 'add ON LATE DROP (counted in a metric) or ON LATE TO <sink> (kept, with late_side and late_by_ms); ALLOWED LATENESS keeps rows matchable for longer',
    explain: `An interval join keeps each side's rows only while a row of the other side can still match
them: once the watermark has passed a row's time, the rows it would have joined may already be
gone. So a row whose time is below the watermark (minus the view's ALLOWED LATENESS) is late:
it joins nothing (Flink's DataStream interval join drops such rows too; Flink SQL joins them with
whatever is still cached, which pipec does not, see docs/language-decisions.md). pipec never drops
such rows without a word: say what you want.

  CREATE VIEW paid AS SELECT ... FROM orders o JOIN payments p ON ... BETWEEN ...
  ALLOWED LATENESS INTERVAL '10' SECOND      -- keep rows matchable 10 s longer (more state)
  ON LATE TO late_rows;                      -- or ON LATE DROP

ON LATE DROP counts the rows in \`pipec_late_events_total{operator}\`. ON LATE TO sends each late row
to a sink declared without FROM, as the join's columns with the other side's NULL, plus
\`late_side\` ('left' or 'right') and \`late_by_ms\`.`,
  }),

  'unbounded-state': def<{ owner: string; operator: string; reason: string }>({
    severity: 'warning',
    title: 'operator state without a bound',
    message: (p) => `the ${p.operator} of ${p.owner} keeps state without bound: ${p.reason}`,
    help: () => "bound it: aggregate in a window, give the join a time bound, or add WITH (state_ttl = '1 d') to the view",
    explain: `Streams do not end, so an operator that keeps a row for every key or every event it has
seen grows until the process runs out of memory or its checkpoints become too large to
restore. A window bounds state by window size plus allowed lateness; an interval join by its
time bound; \`state_ttl\` by forgetting keys not updated for that long.

The checker rejects the plainest cases (a GROUP BY without window or state_ttl, a join with
neither time bound nor state_ttl). This warning reports the state that remains unbounded in
the plan, with the reason. A temporal join against a CDC changelog is not reported: it keeps
one row per key of that table, which grows with the table, not with the stream.`,
  }),

  'distinct-state-large': def<{ owner: string; column: string; retain: string }>({
    severity: 'warning',
    title: 'COUNT(DISTINCT) over a long window',
    message: (p) => `COUNT(DISTINCT ${p.column}) in ${p.owner} keeps every distinct value for ${p.retain} per key`,
    help: (p) => `use APPROX_COUNT_DISTINCT(${p.column}) (a fixed-size sketch) or a shorter window`,
    explain: `COUNT(DISTINCT x) must remember every distinct x of the window (or, without a window, of the
state TTL) for every group key. Over a day or more this is often the largest state of the
pipeline. APPROX_COUNT_DISTINCT keeps a fixed-size HyperLogLog sketch instead (about 2%
relative error).`,
  }),

  'kafka-sink-not-idempotent': def<{ sink: string; acks: string; idempotent: boolean }>({
    severity: 'warning',
    title: 'Kafka sink without acks=all and idempotence',
    message: (p) =>
      `Kafka sink '${p.sink}' writes with acks=${p.acks}${p.idempotent ? '' : ' and without idempotence'}: a broker failover can lose or duplicate records`,
    help: () => "set acks = 'all' and leave idempotence on (the default) in the sink's WITH options",
    explain: `With acks=1 a record is acknowledged once the partition leader has it; if the leader fails
before a follower copies it, the record is lost although the pipeline counted it as written.
With acks=0 nothing is confirmed at all. Without idempotence, a retried send after a timeout
can write the record twice, out of order.

acks=all with an idempotent producer (and transactions for exactly-once delivery) is the only
setting under which a checkpoint means the data is in Kafka.`,
  }),

  'clickhouse-duplicates-on-replay': def<{ sink: string; table: string; sources: string }>({
    severity: 'warning',
    title: 'at-least-once delivery of keyless rows into ClickHouse',
    message: (p) =>
      `ClickHouse sink '${p.sink}' is fed at least once from ${p.sources} and its rows have no key: rows replayed after a restart are inserted into ${p.table} again`,
    help: (p) =>
      `set delivery = 'exactly-once' on sink '${p.sink}' and let ${p.table} deduplicate inserts (SETTINGS non_replicated_deduplication_window = 100, or a Replicated* engine), or give the rows a key (EMIT CHANGES makes an upsert stream for a ReplacingMergeTree), or write '-- pipec:allow clickhouse-duplicates-on-replay' above the sink if duplicates are acceptable`,
    explain: `After a crash the runtime restarts from its last checkpoint and replays the source records
that followed it: Kafka offsets, CDC positions and files are re-read. With the ClickHouse
sink's default \`delivery = 'at-least-once'\`, rows are inserted as they come, in batches cut
by size and by \`flush_interval\`; the replayed rows are cut into other batches than before,
so their insert_deduplication_tokens differ and ClickHouse stores them a second time. (On a
table that deduplicates, the tokens still make a retried insert land once.)

Two fixes:
- \`delivery = 'exactly-once'\` (needs \`pipec run --checkpoint-dir\`): the rows of each
  checkpoint interval are staged in the checkpoint directory and inserted once the checkpoint
  is durable, under tokens a restart reproduces. ClickHouse drops a re-inserted batch only if
  the server knows insert_deduplication_token (22.2 and later) and the table deduplicates: a
  Replicated* table, or a MergeTree created with
  \`SETTINGS non_replicated_deduplication_window = 100\`. The runtime checks both at start and
  warns when the guarantee degrades to at-least-once. Rows appear one checkpoint interval
  later than with at-least-once delivery.
- A key: a GROUP BY with EMIT CHANGES (or a CDC source) makes the sink an upsert stream,
  written to a ReplacingMergeTree ordered by the key, where a replayed row replaces itself.

When occasional duplicates after a crash are acceptable (approximate dashboards), silence the
warning on that sink with a \`-- pipec:allow clickhouse-duplicates-on-replay\` comment.`,
  }),

  'iceberg-small-files': def<{ sink: string; interval: string; partitions: string; filesPerDay: string }>({
    severity: 'warning',
    title: 'Iceberg commit interval that produces small files',
    message: (p) =>
      `Iceberg sink '${p.sink}' commits every ${p.interval} into ${p.partitions} per commit: an estimated ${p.filesPerDay} data files per day`,
    help: () =>
      "raise commit_interval (e.g. '10 min'), partition more coarsely, or add a CREATE COMPACTION POLICY with REWRITE DATA FILES on this sink",
    explain: `Each commit writes at least one data file into every partition it touches. The estimate is
(86400000 / commit_interval in ms) x partitions written per commit, where a bucket[N]
partition field counts N, an identity field counts the column's known distinct values, and a
time transform (year, month, day, hour) counts 1 because streaming data is mostly recent.
Unknown factors count 1, so the estimate is a lower bound. pipec warns above 1,000 files a
day, unless a compaction policy with REWRITE DATA FILES covers the sink.

Thousands of small files a day slow every reader (one request per file, per-file metadata in
every manifest) and make commits slower as manifests grow. Raise the commit interval, or let a
compaction policy rewrite small files:

  CREATE COMPACTION POLICY lake_maintenance ON events_lake (
    REWRITE DATA FILES WHERE file_size < '32 MB' TARGET '128 MB'
  ) SCHEDULE EVERY INTERVAL '1' HOUR;`,
  }),

  'iceberg-identity-high-cardinality': def<{ sink: string; column: string; type: string }>({
    severity: 'warning',
    title: 'Iceberg identity partition on a high-cardinality column',
    message: (p) => `Iceberg sink '${p.sink}' partitions by identity(${p.column}) on a ${p.type} column: one partition, and at least one file per commit, for every distinct value`,
    help: (p) => `partition by bucket(16, ${p.column}) (or truncate(W, ${p.column})) instead`,
    explain: `An identity partition makes a directory and at least one data file per distinct value and per
commit. On an id, a user name or a timestamp that is millions of partitions of tiny files, and
a manifest list that every query plans over. Hidden partitioning transforms keep the benefit
(pruning by the column) with a bounded number of partitions: bucket(N, c) for equality
lookups, truncate(W, c) for prefixes, day(ts)/hour(ts) for time.`,
  }),

  'iceberg-bucket-non-key': def<{ sink: string; column: string; keys: string }>({
    severity: 'warning',
    title: 'Iceberg bucket partition on a column that is not a key',
    message: (p) => `Iceberg sink '${p.sink}' buckets on '${p.column}', which is not a key of the rows it writes (key: ${p.keys})`,
    help: (p) => `bucket on a key column instead: bucket(N, ${p.keys.split(', ')[0]})`,
    explain: `bucket(N, c) spreads rows by a hash of c so that lookups and updates by c touch one bucket. Its
value comes from c being how rows are addressed: the upsert key (equality deletes of
merge-on-read tables stay within one bucket) or the grouping key of the aggregate that
produces the rows. Bucketing on another column scatters every key's rows over all buckets and
makes each update rewrite or delete across all of them.`,
  }),

  'cdc-without-heartbeat': def<{ source: string }>({
    severity: 'warning',
    title: 'PostgreSQL CDC source without heartbeat',
    message: (p) =>
      `PostgreSQL CDC source '${p.source}' sets no heartbeat: while its tables are idle the replication slot cannot advance and the server keeps all WAL`,
    help: (p) => `add heartbeat = '30 s' to the WITH options of '${p.source}'`,
    explain: `A logical replication slot holds back WAL removal until its consumer confirms a position. The
consumer can only confirm positions it has seen, and it sees only changes to the tables it
replicates. When those tables are quiet but the rest of the database is busy, WAL accumulates
on the server until the disk fills. A heartbeat makes the runtime confirm the server's current
position periodically (and emit a small message when needed) so the slot advances.`,
  }),

  'group-key-not-message-key': def<{ owner: string; groupKeys: string; source: string; messageKey: string }>({
    severity: 'warning',
    title: 'grouping key differs from the Kafka message key',
    message: (p) =>
      `${p.owner} groups by (${p.groupKeys}) but topic of source '${p.source}' is keyed by ${p.messageKey}: this pipeline cannot run on several processes (scale_out = 'partitions')`,
    help: (p) => `key the topic by the grouping columns (key = '${p.groupKeys}'), or re-key it with a stateless pipeline first (docs/scale-out.md)`,
    explain: `Kafka assigns records to partitions by message key, and with scale_out = 'partitions'
several runtime processes share a topic's partitions, each keeping the state of its own
partitions. An aggregation is right on several processes only when all records of a group
arrive on the same partition, which holds when the message key columns are among the grouping
columns. pipec does not insert a repartition topic yet: key the topic by the grouping columns,
or write the records to a topic keyed by them with a stateless pipeline (one more topic, one
more hop of latency, twice the broker traffic) and aggregate that. On one process the
aggregation is right either way; this warns because it is what stands in the way of scaling out.`,
  }),

  'hot-partition-group-key': def<{ owner: string; groupKeys: string; distinct: number }>({
    severity: 'warning',
    title: 'grouping only on low-cardinality columns',
    message: (p) =>
      `${p.owner} groups only by (${p.groupKeys}), which has at most ${p.distinct} distinct values: at most ${p.distinct} workers can share the load`,
    help: () => 'add a higher-cardinality column to the grouping key and roll up afterwards, or accept a single hot partition',
    explain: `All records of a group are processed by the worker that owns the group's key. When the key
has only a few distinct values (a BOOLEAN, an enum, a datagen choice), only that many workers
do any work no matter how many run, and the busiest value becomes a hot partition. Grouping
by a finer key first (e.g. region and user_id) and aggregating the partial results by region
in a second view spreads the work.`,
  }),

  'registry-compatibility-weak': def<{ source: string; subject: string; level: string }>({
    severity: 'warning',
    title: 'schema registry subject without BACKWARD or FULL compatibility',
    message: (p) =>
      `schema subject '${p.subject}' of source '${p.source}' has compatibility ${p.level}: a producer can register a schema this pipeline cannot read`,
    help: () => 'set the subject compatibility to BACKWARD or FULL (or their _TRANSITIVE forms) in the schema registry',
    explain: `A consumer compiled against one schema version reads records written with newer versions only
if each new version is backward compatible (fields added with defaults, no field removed
without a default). With compatibility NONE or FORWARD the registry accepts changes that make
the pipeline's decoders fail on new records, which then go to the dead-letter sink.`,
  }),
} as const;
