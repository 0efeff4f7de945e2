// Diagnostic codes of the check phase (names, types, streaming rules, options). Each entry:
// severity, title, message, help and a long explanation for `pipec explain`.
import { def } from '../diagnostic.ts';

const didYouMean = (s: string | null | undefined): string | null => (s ? `did you mean '${s}'?` : null);

export const checkCodes = {
  // ------------------------------------------------------------ names
  'duplicate-name': def<{ name: string; kind: string }>({
    severity: 'error',
    title: 'name declared twice',
    message: (p) => `'${p.name}' is already declared (as a ${p.kind})`,
    help: () => 'sources, views, sinks, catalogs and compaction policies share one namespace; rename one of them',
    explain:
      'Every CREATE statement names an object, and sources, views, sinks, catalogs and compaction policies share one namespace (a FROM clause or ON LATE TO must know which object a name means). Rename one of the two declarations.',
  }),
  'duplicate-pipeline': def<Record<string, never>>({
    severity: 'error',
    title: 'more than one PIPELINE statement',
    message: () => 'a file holds at most one PIPELINE statement',
    help: () => 'merge the options into the first PIPELINE statement',
    explain: 'A `.pipe.sql` file is one pipeline; its optional PIPELINE statement names it and sets pipeline-wide options. Only one is allowed.',
  }),
  'unknown-relation': def<{ name: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown source or view',
    message: (p) => `no source or view named '${p.name}'`,
    help: (p) => didYouMean(p.suggestion) ?? 'declare it with CREATE SOURCE or CREATE VIEW',
    explain: 'A FROM clause, a join, a window function or a sink reads a source or a view by name. The name is not declared in this file.',
  }),
  'wrong-relation-kind': def<{ name: string; kind: string; expected: string }>({
    severity: 'error',
    title: 'name refers to the wrong kind of object',
    message: (p) => `'${p.name}' is a ${p.kind}, but a ${p.expected} is expected here`,
    help: (p) => `name a ${p.expected}`,
    explain: 'Queries read sources and views; ON LATE TO writes to a sink; a compaction policy maintains an Iceberg sink. The name given is declared, but as a different kind of object.',
  }),
  'view-cycle': def<{ names: string }>({
    severity: 'error',
    title: 'views depend on each other in a cycle',
    message: (p) => `views read each other in a cycle: ${p.names}`,
    help: () => 'break the cycle: a view cannot (indirectly) read itself',
    explain: 'Views may be declared in any order, but their dependencies must form a DAG: a stream cannot be computed from itself.',
  }),
  'unknown-column': def<{ name: string; where: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown column',
    message: (p) => `no column '${p.name}' in ${p.where}`,
    help: (p) => didYouMean(p.suggestion),
    explain: 'The column is not among the columns of the relations in scope. Columns of a source come from its declaration or its schema; columns of a view are the names of its SELECT list.',
  }),
  'ambiguous-column': def<{ name: string; relations: string }>({
    severity: 'error',
    title: 'ambiguous column',
    message: (p) => `column '${p.name}' is ambiguous: it exists in ${p.relations}`,
    help: (p) => `qualify it, e.g. ${p.relations.split(', ')[0]}.${p.name}`,
    explain: 'In a join both sides may have a column of the same name. An unqualified reference would be ambiguous, so qualify it with the table name or alias.',
  }),
  'unknown-qualifier': def<{ name: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown table alias',
    message: (p) => `no table or alias '${p.name}' in this FROM clause`,
    help: (p) => didYouMean(p.suggestion),
    explain: 'A qualified column `t.col` or `t.*` names a relation of the FROM clause by its alias, or by its name when it has no alias.',
  }),
  'duplicate-alias': def<{ name: string }>({
    severity: 'error',
    title: 'alias used twice',
    message: (p) => `'${p.name}' names two relations of this FROM clause`,
    help: () => 'give one of them a different alias',
    explain: 'Each relation of a join needs a distinct name so that qualified columns resolve unambiguously.',
  }),
  'unknown-catalog': def<{ name: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown catalog',
    message: (p) => `no catalog named '${p.name}'`,
    help: (p) => didYouMean(p.suggestion) ?? `declare it: CREATE CATALOG ${p.name} WITH (type = 'sql', ...)`,
    explain: 'An Iceberg sink names the catalog its table lives in with `catalog = ...`; it must be declared with CREATE CATALOG in the same file.',
  }),
  'duplicate-column': def<{ name: string }>({
    severity: 'error',
    title: 'column declared twice',
    message: (p) => `column '${p.name}' is declared twice`,
    help: () => 'remove or rename one of them',
    explain: 'Column names of a source are case-insensitive (unless quoted) and must be unique.',
  }),
  // ------------------------------------------------------------ options
  'missing-connector': def<{ kind: string; name: string }>({
    severity: 'error',
    title: 'connector missing',
    message: (p) => `${p.kind} '${p.name}' has no connector option`,
    help: (p) => (p.kind === 'source' ? "add connector = 'kafka' (or postgres-cdc, file, datagen)" : "add connector = 'clickhouse' (or iceberg, kafka, stdout, file)"),
    explain: 'Every source and sink says in its WITH options which connector reads or writes it.',
  }),
  'unknown-connector': def<{ kind: string; connector: string; known: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown connector',
    message: (p) => `unknown ${p.kind} connector '${p.connector}' (known: ${p.known})`,
    help: (p) => didYouMean(p.suggestion),
    explain: 'pipec supports the source connectors kafka, postgres-cdc, file and datagen, and the sink connectors clickhouse, iceberg, kafka, stdout and file.',
  }),
  'missing-option': def<{ key: string; owner: string }>({
    severity: 'error',
    title: 'required option missing',
    message: (p) => `${p.owner} requires the option '${p.key}'`,
    help: (p) => `add ${p.key} = '...' to the WITH clause`,
    explain: 'Each connector has options without which it cannot run (a Kafka topic, a file path, a catalog table). LANGUAGE.md lists them per connector.',
  }),
  'unknown-option': def<{ key: string; owner: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown option',
    message: (p) => `${p.owner} has no option '${p.key}'`,
    help: (p) => didYouMean(p.suggestion),
    explain: 'An option that is not understood would be ignored silently, which usually hides a typo (`commit_interal`). Unknown options are therefore errors.',
  }),
  'duplicate-option': def<{ key: string }>({
    severity: 'error',
    title: 'option set twice',
    message: (p) => `option '${p.key}' is set twice`,
    help: () => 'keep one of them',
    explain: 'An option may appear once per WITH clause; otherwise which value wins would be a guess.',
  }),
  'invalid-option-value': def<{ key: string; value: string; expected: string }>({
    severity: 'error',
    title: 'invalid option value',
    message: (p) => `option '${p.key}' = '${p.value}' is not ${p.expected}`,
    help: (p) => `use ${p.expected}`,
    explain: "Options are typed: durations ('30 s', '5 min', '1 h', '7 d', '100ms'), sizes ('128 MB' = 128·10^6 bytes, '1 GiB' = 2^30 bytes), integers, booleans (true/false) and fixed sets of words.",
  }),
  // ------------------------------------------------------------ sources
  'source-without-columns': def<{ name: string }>({
    severity: 'error',
    title: 'source has no columns',
    message: (p) => `source '${p.name}' declares no columns and no schema`,
    help: () => "declare the columns in parentheses, or set schema = 'file:...' / 'registry:...'",
    explain: 'The columns of a source come from its declaration or from its schema (Avro, Protobuf, JSON Schema, registry subject, PostgreSQL table). With neither, nothing is known about its records.',
  }),
  'watermark-column-type': def<{ column: string; type: string }>({
    severity: 'error',
    title: 'watermark on a non-timestamp column',
    message: (p) => `WATERMARK column '${p.column}' has type ${p.type}; it must be TIMESTAMP(p) or TIMESTAMP_LTZ(p)`,
    help: () => 'declare an event-time column of type TIMESTAMP(3), e.g. with TO_TIMESTAMP_LTZ(ms, 3) in a view',
    explain: 'Event time is a timestamp. A watermark on another type has no meaning.',
  }),
  'watermark-expr': def<{ column: string }>({
    severity: 'error',
    title: 'unsupported watermark expression',
    message: (p) => `the watermark must be '${p.column}' or '${p.column} - INTERVAL ...'`,
    help: (p) => `write WATERMARK FOR ${p.column} AS ${p.column} - INTERVAL '5' SECOND`,
    explain: 'pipec supports bounded out-of-orderness watermarks: the watermark is the largest event time seen minus a fixed delay. The expression after AS must be the column itself or the column minus an interval literal.',
  }),
  'datagen-unknown-field': def<{ column: string; suggestion: string | null }>({
    severity: 'error',
    title: 'datagen option for an unknown column',
    message: (p) => `'fields.${p.column}.*' names no column of this source`,
    help: (p) => didYouMean(p.suggestion),
    explain: 'The datagen options `fields.<col>.kind/min/max/values/step` configure one declared column each.',
  }),
  'datagen-field-invalid': def<{ column: string; detail: string }>({
    severity: 'error',
    title: 'invalid datagen field options',
    message: (p) => `datagen field '${p.column}': ${p.detail}`,
    explain: "A `choice` field needs `values` (comma separated); `min` must not exceed `max`.",
  }),
  'cdc-without-primary-key': def<{ name: string }>({
    severity: 'warning',
    title: 'changelog source without a primary key',
    message: (p) => `changelog source '${p.name}' has no primary key`,
    help: () => 'declare PRIMARY KEY (...) NOT ENFORCED or give the table a primary key',
    explain: 'Updates and deletes of a changelog are applied by key. Without a key a changelog can only be treated as retractions of whole rows, and it cannot be the right side of a temporal join.',
  }),
  // ------------------------------------------------------------ expressions
  'type-mismatch': def<{ op: string; left: string; right: string }>({
    severity: 'error',
    title: 'operator applied to incompatible types',
    message: (p) => `cannot apply '${p.op}' to ${p.left} and ${p.right}`,
    help: () => 'CAST one side to the type of the other',
    explain: 'Arithmetic needs numbers (or a timestamp and an interval), comparison needs two comparable types (numbers, strings, timestamps, dates, booleans). pipec does not convert strings to numbers implicitly.',
  }),
  'expected-type': def<{ what: string; expected: string; actual: string }>({
    severity: 'error',
    title: 'expression has the wrong type',
    message: (p) => `${p.what} must be ${p.expected}, not ${p.actual}`,
    explain: 'The position requires a given type (WHERE and HAVING need BOOLEAN, LIKE needs STRING, ...).',
  }),
  'incompatible-types': def<{ what: string; types: string }>({
    severity: 'error',
    title: 'no common type',
    message: (p) => `the branches of ${p.what} have no common type: ${p.types}`,
    help: () => 'CAST the branches to one type',
    explain: 'CASE, COALESCE, NULLIF, IN lists and UNION ALL combine values into one column, so their types must unify (numbers widen, timestamps take the larger precision).',
  }),
  'unknown-function': def<{ name: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown function',
    message: (p) => `unknown function '${p.name.toUpperCase()}'`,
    help: (p) => didYouMean(p.suggestion?.toUpperCase()),
    explain: 'LANGUAGE.md lists the scalar functions and aggregates pipec knows; each target maps them to its own.',
  }),
  'wrong-arity': def<{ name: string; expected: string; actual: number }>({
    severity: 'error',
    title: 'wrong number of arguments',
    message: (p) => `${p.name.toUpperCase()} takes ${p.expected} argument(s), got ${p.actual}`,
    explain: 'The function was called with a number of arguments it does not accept.',
  }),
  'invalid-cast': def<{ from: string; to: string }>({
    severity: 'error',
    title: 'invalid CAST',
    message: (p) => `cannot CAST ${p.from} to ${p.to}`,
    explain: 'Numbers, strings, booleans, dates and timestamps convert into one another as in Flink SQL; arrays, maps and rows convert only element-wise into the same shape.',
  }),
  'invalid-literal': def<{ text: string; type: string }>({
    severity: 'error',
    title: 'invalid literal',
    message: (p) => `'${p.text}' is not a valid ${p.type} literal`,
    help: (p) => (p.type === 'TIMESTAMP' ? "write TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.fff]'" : p.type === 'DATE' ? "write DATE 'YYYY-MM-DD'" : null),
    explain: 'Typed literals must be well formed: TIMESTAMP \'2024-05-01 12:00:00\', DATE \'2024-05-01\', numbers within the DECIMAL(38) range.',
  }),
  'aggregate-not-allowed': def<{ clause: string }>({
    severity: 'error',
    title: 'aggregate in the wrong clause',
    message: (p) => `aggregate functions are not allowed in ${p.clause}`,
    help: (p) => (p.clause === 'WHERE' ? 'filter on aggregates in HAVING' : null),
    explain: 'WHERE filters rows before grouping, GROUP BY computes keys of rows: neither can see an aggregate. Use HAVING to filter groups.',
  }),
  'nested-aggregate': def<{ name: string }>({
    severity: 'error',
    title: 'aggregate inside an aggregate',
    message: (p) => `aggregate ${p.name.toUpperCase()} cannot be nested inside another aggregate`,
    help: () => 'compute the inner aggregate in a view and aggregate that view',
    explain: 'An aggregate reads rows of its group; an inner aggregate has no rows to read.',
  }),
  'invalid-aggregate-call': def<{ name: string; detail: string }>({
    severity: 'error',
    title: 'invalid aggregate call',
    message: (p) => `${p.name.toUpperCase()}: ${p.detail}`,
    explain: 'Only COUNT accepts `*` and DISTINCT; SUM and AVG need a numeric argument.',
  }),
  // ------------------------------------------------------------ grouping and windows
  'column-not-grouped': def<{ name: string }>({
    severity: 'error',
    title: 'column neither grouped nor aggregated',
    message: (p) => `'${p.name}' is neither in GROUP BY nor inside an aggregate`,
    help: (p) => `add ${p.name} to GROUP BY or wrap it in an aggregate such as MAX(${p.name})`,
    explain: 'After GROUP BY each output row stands for a group of input rows. A column that is not a group key has many values per group, so it must be aggregated.',
  }),
  'window-column-unavailable': def<{ name: string; reason: string }>({
    severity: 'error',
    title: 'window column not available here',
    message: (p) => `'${p.name}' is not available ${p.reason}`,
    help: () => 'window_start, window_end and window_time come from TUMBLE/HOP/CUMULATE/SESSION in FROM and can be used in GROUP BY, SELECT and HAVING',
    explain: 'The window columns exist only on the output of a window table function, once rows are assigned to windows: in GROUP BY, SELECT and HAVING of a windowed aggregate, not in WHERE and not without a window function.',
  }),
  'window-group-missing': def<{ missing: string }>({
    severity: 'error',
    title: 'windowed GROUP BY lacks the window columns',
    message: (p) => `a windowed aggregate must GROUP BY window_start and window_end (missing: ${p.missing})`,
    help: (p) => `add ${p.missing} to GROUP BY`,
    explain: 'As in Flink SQL, an aggregate over a window table function groups by the window: GROUP BY must list window_start and window_end.',
  }),
  'session-partition-not-grouped': def<{ missing: string }>({
    severity: 'error',
    title: 'SESSION partition column not grouped',
    message: (p) => `SESSION(... PARTITION BY ...) columns must be in GROUP BY (missing: ${p.missing})`,
    help: (p) => `add ${p.missing} to GROUP BY`,
    explain: 'A SESSION window with PARTITION BY keeps one session per partition key; the aggregate must group by those keys too, or sessions of different keys would be merged into one row.',
  }),
  'window-without-aggregate': def<Record<string, never>>({
    severity: 'error',
    title: 'window function without aggregation',
    message: () => 'a window table function must be aggregated (GROUP BY window_start, window_end)',
    help: () => 'add aggregates and GROUP BY window_start, window_end, or read the relation without a window',
    explain: 'pipec plans window table functions as window aggregates; assigning windows to rows without aggregating them is not supported in v0.',
  }),
  'window-time-not-rowtime': def<{ column: string; relation: string; rowtime: string | null }>({
    severity: 'error',
    title: 'window on a column without a watermark',
    message: (p) =>
      p.rowtime
        ? `'${p.column}' is not the event-time column of '${p.relation}' (its watermark is on '${p.rowtime}')`
        : `'${p.relation}' has no event-time column: windows need a WATERMARK`,
    help: (p) => (p.rowtime ? `window on ${p.rowtime}` : `declare WATERMARK FOR ${p.column} AS ${p.column} - INTERVAL '5' SECOND on the source`),
    explain: 'A window closes when the watermark passes its end, so it must be assigned on the column the watermark tracks (the source\'s WATERMARK column, or window_time of an upstream window aggregate).',
  }),
  'window-arg-invalid': def<{ what: string; detail: string }>({
    severity: 'error',
    title: 'invalid window argument',
    message: (p) => `window ${p.what} ${p.detail}`,
    explain: "Window sizes, slides, steps, gaps and offsets are fixed-length INTERVAL literals (seconds to days); sizes are positive; a TUMBLE offset is smaller than the size; a HOP size is a multiple of its slide and a CUMULATE size a multiple of its step (as Flink requires).",
  }),
  'calendar-interval': def<{ text: string }>({
    severity: 'error',
    title: 'month or year interval',
    message: (p) => `INTERVAL '${p.text}' has no fixed length; months and years are not allowed here`,
    help: () => "use days, e.g. INTERVAL '30' DAY",
    explain: 'A month or a year has no fixed number of milliseconds, so windows, bounds and lateness cannot use them.',
  }),
  'window-on-changelog': def<{ relation: string }>({
    severity: 'error',
    title: 'window over a changelog',
    message: (p) => `'${p.relation}' is a changelog (updates and deletes); window aggregates need an append-only input`,
    explain: 'Window aggregates and interval joins assign each row to time once; an update or delete of an earlier row cannot be applied to a window that may already be emitted.',
  }),
  // ------------------------------------------------------------ streaming rules
  'unbounded-aggregation': def<{ missing: string }>({
    severity: 'error',
    title: 'aggregation with unbounded state',
    message: (p) => `a GROUP BY without a window over an unbounded stream needs ${p.missing}`,
    help: () => "add EMIT CHANGES and WITH (state_ttl = '1 d') to the view, or aggregate over a window",
    explain: 'A non-windowed aggregate keeps one state entry per group forever, and its results are never final. Say so explicitly: EMIT CHANGES (its output is an upsert stream) and a state_ttl after which an idle group is forgotten.',
  }),
  'unbounded-join': def<Record<string, never>>({
    severity: 'error',
    title: 'join without a time bound',
    message: () => 'this join has no time bound: its state would grow without limit',
    help: () => "bound it: AND a.ts BETWEEN b.ts - INTERVAL '5' MINUTE AND b.ts, or join FOR SYSTEM_TIME AS OF a changelog",
    explain: 'A streaming join keeps both inputs in state to match future rows. An interval condition on the two event-time columns bounds that state; a temporal join keeps one version per key of a changelog.',
  }),
  'join-ttl-unsupported': def<Record<string, never>>({
    severity: 'error',
    title: 'join bounded only by state_ttl',
    message: () => 'a join bounded only by state_ttl cannot be planned yet',
    help: () => 'add an event-time interval condition, or join FOR SYSTEM_TIME AS OF a changelog source',
    explain: 'The v0 plan has interval joins and temporal joins; a regular join whose state expires by state_ttl is not yet supported by the targets.',
  }),
  'join-time-not-rowtime': def<{ column: string }>({
    severity: 'error',
    title: 'join time bound on a column without a watermark',
    message: (p) => `'${p.column}' is not an event-time column; interval joins bound the event-time columns of both sides`,
    explain: 'An interval join drops state when the watermarks pass the bound, so its condition must compare the event-time (watermarked) columns of the two sides.',
  }),
  'temporal-join-invalid': def<{ detail: string }>({
    severity: 'error',
    title: 'invalid temporal join',
    message: (p) => `temporal join: ${p.detail}`,
    explain: 'A temporal join `JOIN r FOR SYSTEM_TIME AS OF l.ts` looks up, for each left row, the version of the right row valid at the left event time. The right side is a changelog source with a primary key; the ON clause equates every key column with a left expression; `ts` is the left event-time column.',
  }),
  'join-on-changelog': def<{ relation: string }>({
    severity: 'error',
    title: 'changelog input of an interval join',
    message: (p) => `'${p.relation}' is a changelog; interval joins need append-only inputs`,
    help: () => 'join a changelog FOR SYSTEM_TIME AS OF an event-time column instead',
    explain: 'An interval join matches rows once by time; it cannot retract a match when an input row is updated or deleted.',
  }),
  'emit-not-applicable': def<{ mode: string }>({
    severity: 'error',
    title: 'EMIT on a query that does not aggregate over a window',
    message: (p) => `${p.mode} applies only to ${p.mode === 'EMIT ON WINDOW CLOSE' ? 'window aggregates' : 'aggregations'}`,
    help: () => 'remove the EMIT clause',
    explain: 'EMIT ON WINDOW CLOSE says when a window result is final; EMIT CHANGES that an aggregate emits upserts. A query without (window) aggregation has nothing to emit differently.',
  }),
  'lateness-not-applicable': def<{ clause: string }>({
    severity: 'error',
    title: 'late-event handling on a query without windows or interval joins',
    message: (p) => `${p.clause} applies only to window aggregates and interval joins`,
    help: () => 'remove the clause',
    explain: 'Allowed lateness and ON LATE describe events that arrive behind the watermark: after their window closed, or after the rows an interval join would have matched them with were let go. Other queries drop no event for being late.',
  }),
  'aggregate-needs-view': def<Record<string, never>>({
    severity: 'error',
    title: 'non-windowed aggregate in a sink query',
    message: () => 'a CREATE SINK ... AS SELECT cannot hold a non-windowed GROUP BY (it has no EMIT clause)',
    help: () => 'move the query into CREATE VIEW ... EMIT CHANGES WITH (state_ttl = ...) and sink that view',
    explain: 'A non-windowed aggregate needs EMIT CHANGES and state_ttl, which are written on a view.',
  }),
  'union-arity': def<{ expected: number; actual: number }>({
    severity: 'error',
    title: 'UNION ALL inputs differ in width',
    message: (p) => `UNION ALL input has ${p.actual} columns, the first has ${p.expected}`,
    explain: 'Every input of UNION ALL must have the same number of columns, with compatible types position by position.',
  }),
  'late-sink-has-input': def<{ name: string }>({
    severity: 'error',
    title: 'late events sent to a sink that has its own input',
    message: (p) => `sink '${p.name}' reads its own input (FROM or AS SELECT); late events need a sink of their own`,
    help: (p) => `declare a sink without FROM for the late events, e.g. CREATE SINK ${p.name}_late WITH (connector = 'kafka', ...)`,
    explain: 'Late events keep the columns of the window\'s input plus `late_by_ms`, which differ from the rows of a view. A sink that receives late events is declared without FROM and receives nothing else.',
  }),
  'untyped-output': def<{ type: string }>({
    severity: 'error',
    title: 'output column without a storable type',
    message: (p) => `a SELECT column of type ${p.type} cannot be stored or sent`,
    help: (p) => (p.type === 'NULL' ? 'write CAST(NULL AS <type>)' : 'convert the interval to a number, e.g. a count of seconds'),
    explain: 'Every output column of a view or sink has a type that sinks and targets can represent. A bare NULL has no type, and INTERVAL values exist only inside expressions.',
  }),
  'late-target-unused': def<{ name: string }>({
    severity: 'warning',
    title: 'sink without input',
    message: (p) => `sink '${p.name}' has no FROM and no query, and no view sends late events to it`,
    help: (p) => `add FROM <view>, or ON LATE TO ${p.name} to a window view`,
    explain: 'A sink declared without FROM receives only late events of views that say ON LATE TO it. This one receives nothing.',
  }),
  // ------------------------------------------------------------ sinks, catalogs, compaction
  'sink-column-unknown': def<{ option: string; column: string; sink: string; suggestion: string | null }>({
    severity: 'error',
    title: 'sink option names an unknown column',
    message: (p) => `${p.option} names '${p.column}', which is not a column of sink '${p.sink}'`,
    help: (p) => didYouMean(p.suggestion),
    explain: 'Keys, ordering and partitioning of a sink are columns of the rows it receives.',
  }),
  'invalid-table-name': def<{ table: string; expected: string }>({
    severity: 'error',
    title: 'invalid table name',
    message: (p) => `table '${p.table}' must be written ${p.expected}`,
    explain: "Iceberg tables are named 'namespace.table'; ClickHouse tables 'database.table' (or 'table' in the default database).",
  }),
  'partition-spec-invalid': def<{ text: string; detail: string }>({
    severity: 'error',
    title: 'invalid partition_by',
    message: (p) => `partition_by '${p.text}': ${p.detail}`,
    help: () => "write e.g. partition_by = 'day(ts), bucket(16, customer_id), region'",
    explain: 'Iceberg partition transforms: identity(c) or c, bucket(N, c), truncate(W, c), year(c), month(c), day(c), hour(c). year..hour need a DATE or TIMESTAMP column (hour a TIMESTAMP); truncate needs a STRING, integer or DECIMAL column; bucket works on all primitive types but FLOAT, DOUBLE and BOOLEAN.',
  }),
  'sort-spec-invalid': def<{ text: string; detail: string }>({
    severity: 'error',
    title: 'invalid sort_by',
    message: (p) => `sort_by '${p.text}': ${p.detail}`,
    help: () => "write e.g. sort_by = 'customer_id ASC NULLS LAST, ts DESC'",
    explain: 'sort_by lists columns, each optionally followed by ASC or DESC and NULLS FIRST or NULLS LAST (defaults: ASC, NULLS FIRST for ASC and NULLS LAST for DESC, as Iceberg).',
  }),
  'compaction-target': def<{ name: string; detail: string }>({
    severity: 'error',
    title: 'compaction policy on a non-Iceberg target',
    message: (p) => `compaction policy target '${p.name}' ${p.detail}`,
    help: () => 'name an Iceberg sink declared in this file',
    explain: 'Compaction policies rewrite files and expire snapshots of an Iceberg table, so their target is an Iceberg sink.',
  }),
  'compaction-value-invalid': def<{ what: string; detail: string }>({
    severity: 'error',
    title: 'invalid compaction setting',
    message: (p) => `${p.what}: ${p.detail}`,
    explain: "Compaction sizes are sizes ('32 MB', '1 GiB'), ages are fixed-length intervals, ratios lie between 0 and 1 (or 0 and 100 PERCENT), counts are positive integers.",
  }),
  // ------------------------------------------------------------ scale_out = 'partitions'
  'scale-out-source': def<{ name: string; detail: string }>({
    severity: 'error',
    title: "scale_out = 'partitions' needs exactly one Kafka source",
    message: (p) => `source '${p.name}' ${p.detail}: with scale_out = 'partitions' a pipeline reads exactly one Kafka source`,
    help: () => "split the pipeline so that each part reads one Kafka topic, or remove scale_out (one process then reads every source)",
    explain: `With scale_out = 'partitions' every Kafka partition of the source is a task with its own
operator state and its own watermark, and a partition moves between runtime processes together
with that state (Kafka Streams' task model). A task is defined by one partition of one topic:
a pipeline that reads two sources, or a file, datagen or postgres-cdc source (which have no
Kafka partitions a consumer group could share), has no such unit of work. Two sources would
need co-partitioned topics and tasks that span them, which pipec does not build yet.
Fix: give each topic its own pipeline (one pipeline may write a topic that the next reads as
its only source), or run the pipeline on one process without scale_out.`,
  }),
  'scale-out-join': def<{ owner: string; kind: string }>({
    severity: 'error',
    title: "a join cannot run with scale_out = 'partitions'",
    message: (p) => `${p.owner} holds ${p.kind}: with scale_out = 'partitions' joins are refused (the state of a join's two inputs is not partition-scoped yet)`,
    help: () => 'join in a pipeline without scale_out, or move the join upstream of the topic this pipeline reads',
    explain: `A join keeps rows of two inputs and matches them by key. Under scale_out = 'partitions'
each Kafka partition is its own task; the two sides of a join would have to arrive on the same
task, which needs co-partitioned topics (same partition count, same key, same partitioner) or a
repartition through Kafka. pipec builds neither yet, so joins (interval and temporal) are
refused rather than run with rows of one key split over tasks that never meet.`,
  }),
  'scale-out-key-not-message-key': def<{ owner: string; keyedBy: string; source: string; messageKey: string; fix: string }>({
    severity: 'error',
    title: "aggregation key does not determine the Kafka message key (scale_out = 'partitions')",
    message: (p) =>
      `${p.owner} ${p.keyedBy}, but topic of source '${p.source}' is keyed by ${p.messageKey}: records of one group arrive on several partitions, and with scale_out = 'partitions' each partition keeps its own state`,
    help: (p) => p.fix,
    explain: `With scale_out = 'partitions' each Kafka partition is a task with its own aggregation state
and its own watermark. That is correct only when all records one aggregate combines come from
the same partition. Kafka places a record by its message key, so that holds exactly when every
message-key column is among the grouping columns (for SESSION windows: among the PARTITION BY
columns, which decide what one session holds). An aggregation without keys (no GROUP BY keys,
or a SESSION without PARTITION BY) and a source without a declared key combine records of
every partition and are refused too. pipec does not insert a repartition topic; instead key
the topic by the grouping columns where it is produced and declare that with the source's
key option, or group by the message key as well.`,
  }),
  'scale-out-changelog-key': def<{ name: string; detail: string; fix: string }>({
    severity: 'error',
    title: "changelog topic not keyed by its primary key (scale_out = 'partitions')",
    message: (p) => `changelog source '${p.name}' ${p.detail}: with scale_out = 'partitions' the changes of one row must arrive on one partition`,
    help: (p) => p.fix,
    explain: `A changelog source (format 'debezium-json') is made of inserts, updates and deletes of rows
identified by the PRIMARY KEY; the runtime keeps the last row per key (a changelog normalize)
to turn key-only deletes into full retractions. With scale_out = 'partitions' that state is
kept per partition, so all changes of one key must arrive on the same partition, in order:
the message key must be the primary key (or some of its columns). Debezium keys its topics by
the primary key; declare it with key = '<primary key columns>' and PRIMARY KEY (...) NOT
ENFORCED.`,
  }),
  // ------------------------------------------------------------ names that become paths
  'unsafe-path-name': def<{ kind: string; name: string; reason: string; fromFileName: boolean }>({
    severity: 'error',
    title: 'a name that becomes a file name is not a safe file name',
    message: (p) => `the ${p.kind} name ${p.name} cannot be used as a file name in generated/: it ${p.reason}`,
    help: (p) =>
      p.fromFileName
        ? 'the pipeline is named after the spec file; name it with a PIPELINE statement, or rename the file'
        : `rename the ${p.kind}; letters, digits, '_', '-' and '.' inside the name are always safe`,
    explain: `\`pipec build\` writes each pipeline to \`<out>/<pipeline>/\`, each Iceberg sink to
\`<out>/<pipeline>/iceberg/<sink>/\` and each compaction policy to
\`<out>/<pipeline>/iceberg/maintenance/<policy>.json\`, so these names are file names. A quoted
identifier may hold any character, but a file name may not be empty, \`.\` or \`..\`, hold a path
separator (\`/\`, \`\\\`) or a control character, or be something Windows cannot store (CON, NUL,
COM1..., the characters <>:"|?*, a trailing dot or space) — generated/ is committed and cloned
on every system. Names are limited to 200 bytes. Without this rule a pipeline named
\`../../x\` would make \`pipec build\` write outside its output folder. See docs/security.md.`,
  }),
} as const;
