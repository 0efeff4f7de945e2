// Diagnostic codes of the syntax phase (grammar/ and src/syntax/sql/). Each entry: severity,
// title, message, help, long explanation. Codes are kebab-case and stable once released.
import { def } from '../diagnostic.ts';

export const syntaxCodes = {
  'syntax-error': def<{ expected: string; found: string }>({
    severity: 'error',
    title: 'syntax error',
    message: (p) => `expected ${p.expected}, found ${p.found}`,
    help: () => 'see LANGUAGE.md for the statement forms pipec accepts',
    explain:
      'The parser met a token that cannot continue the statement at that point. The message lists what could come there instead. pipec keeps parsing at the next `;` or `CREATE`, so every broken statement of a file is reported in one run.\n\nExample:\n\n    CREATE SOURCE orders (id BIGINT amount DOUBLE) WITH (connector = \'kafka\');\n                                    ^ expected \',\' or \')\'\n\nFix: add the missing comma.',
  }),
  'syntax-missing-semicolon': def<Record<string, never>>({
    severity: 'error',
    title: "missing ';' after a statement",
    message: () => "missing ';' at the end of this statement",
    help: () => "end every statement with ';'",
    explain:
      "Statements of a `.pipe.sql` file end with `;`. Without it the next `CREATE` would read as part of the statement before, so pipec reports the end of the statement that lacks it and parses the next one on its own.\n\n    CREATE CATALOG lake WITH (type = 'filesystem')   -- missing ';'\n    CREATE SINK out FROM v WITH (connector = 'stdout');",
  }),
  'syntax-unterminated-string': def<Record<string, never>>({
    severity: 'error',
    title: 'unterminated string',
    message: () => 'this string has no closing quote on its line',
    help: () => "close it with ' (write '' for a quote inside the string)",
    explain:
      "String literals are written in single quotes and end on the line they start on; a quote inside is written twice: `'it''s'`. pipec reports a string whose closing quote is missing and reads it as if it ended at the end of the line, so the rest of the file is still checked.",
  }),
  'syntax-unterminated-identifier': def<Record<string, never>>({
    severity: 'error',
    title: 'unterminated quoted name',
    message: () => 'this quoted name has no closing " on its line',
    help: () => 'close it with " (write "" for a quote inside the name)',
    explain: 'A "quoted" identifier keeps its case and may hold any character, but must end on the line it starts on. A double quote inside is written twice.',
  }),
  'syntax-unterminated-comment': def<Record<string, never>>({
    severity: 'error',
    title: 'unterminated block comment',
    message: () => "this '/*' comment is never closed",
    help: () => "close it with '*/'",
    explain: 'A block comment `/* ... */` runs until `*/`. Without the closing mark the rest of the file is a comment, so pipec stops there.',
  }),
  'name-nul-character': def<Record<string, never>>({
    severity: 'error',
    title: 'NUL character in a name',
    message: () => 'this quoted name holds a NUL character (U+0000)',
    help: () => 'remove the NUL from the name',
    explain:
      'A "quoted" name may hold any character except NUL. Names become file names (an Iceberg sink\'s table spec, the pipeline\'s output folder), ClickHouse identifiers and C strings, and none of them can hold U+0000: a name with one would pass `pipec check` and fail later in `pipec build`, so it is refused here, in both the SQL and the YAML form.',
  }),
  'name-empty': def<Record<string, never>>({
    severity: 'error',
    title: 'empty quoted name',
    message: () => 'a quoted name cannot be empty',
    help: () => 'write a name between the quotes',
    explain:
      'A "quoted" name holds at least one character. An empty name cannot be written in the YAML form (`\'""\'` is not a name there), so `pipec fmt --to yaml` could not convert it, and it would name the output folder itself or an unnamed table. Both forms refuse it.',
  }),
  'nesting-too-deep': def<{ limit: number }>({
    severity: 'error',
    title: 'nesting too deep',
    message: (p) => `this nests more than ${p.limit} levels deep`,
    help: () => 'split the expression into views, or use IN (...) instead of a long chain of OR',
    explain:
      "pipec accepts expressions and types nested up to 256 levels: brackets (parentheses, function calls, CASE ... END, ARRAY<...>), prefix NOT and '-', and each operator of a chain such as `a + b + c` (which is read as `(a + b) + c`) all count one level. Deeper input is refused with this error rather than risking the compiler's stack; the statement is skipped and the rest of the file is still checked.\n\nFix: move parts of the expression into a view, replace `x = 1 OR x = 2 OR ...` with `x IN (1, 2, ...)`, or generate flatter SQL.",
  }),
  'syntax-unexpected-char': def<{ char: string }>({
    severity: 'error',
    title: 'unexpected character',
    message: (p) => `unexpected character '${p.char}'`,
    help: () => 'remove it, or put it inside a string literal or a "quoted" name',
    explain: 'The character cannot start any token of the language. Names are letters, digits and `_` (or anything in double quotes); strings are in single quotes.',
  }),
  'syntax-trailing-comma': def<{ closer: string }>({
    severity: 'error',
    title: 'trailing comma',
    message: (p) => `a ',' cannot be followed by '${p.closer}'`,
    help: () => 'remove the last comma of the list',
    explain:
      "Lists (columns of a source, options of `WITH (...)`, select items, function arguments) separate their items by commas; the last item has no comma after it.\n\n    CREATE SOURCE s (a INT, b INT,)   -- remove the comma before ')'",
  }),
  'syntax-double-equals': def<Record<string, never>>({
    severity: 'error',
    title: "'==' is not SQL",
    message: () => "'==' is not an operator in SQL",
    help: () => "write '=' to compare two values",
    explain: "SQL compares with a single `=` (and `<>` or `!=` for 'not equal'). pipec reads `==` as `=` to keep checking the rest of the file, but reports it.",
  }),
  'unknown-type': def<{ name: string; suggestion: string | null }>({
    severity: 'error',
    title: 'unknown type name',
    message: (p) => `unknown type '${p.name}'`,
    help: (p) =>
      p.suggestion
        ? `did you mean ${p.suggestion}?`
        : 'types are BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING, BYTES, DATE, TIMESTAMP(p), TIMESTAMP_LTZ(p), ARRAY<T>, MAP<K, V>, ROW<name T, ...>',
    explain:
      'Column types and CAST targets must be one of the types of LANGUAGE.md: BOOLEAN, INT (INTEGER), BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING (VARCHAR), BYTES, DATE, TIMESTAMP(p), TIMESTAMP_LTZ(p), ARRAY<T>, MAP<K, V> and ROW<name T, ...>, each optionally NOT NULL.',
  }),
  'syntax-bad-type-args': def<{ type: string; detail: string }>({
    severity: 'error',
    title: 'invalid type arguments',
    message: (p) => `invalid ${p.type}: ${p.detail}`,
    help: (p) => (p.type === 'DECIMAL' ? 'write DECIMAL(p, s) with 1 <= p <= 38 and 0 <= s <= p' : null),
    explain:
      'Some types take arguments: DECIMAL(p, s) a precision 1..38 and a scale 0..p; TIMESTAMP(p) and TIMESTAMP_LTZ(p) a fractional-second precision 0..9; VARCHAR(n) a length; ARRAY<T> one element type; MAP<K, V> two types; ROW<name T, ...> named fields. Other types take none.',
  }),
  'syntax-bad-interval': def<{ text: string }>({
    severity: 'error',
    title: 'invalid interval',
    message: (p) => `cannot read '${p.text}' as an interval`,
    help: () => "write INTERVAL '5' SECOND or INTERVAL '5 seconds'",
    explain:
      "An interval is a number and a time unit: `INTERVAL '5' SECOND`, `INTERVAL '1' MINUTE`, or the unit inside the string: `INTERVAL '5 seconds'`, `INTERVAL '30 s'`. Units: millisecond, second, minute, hour, day, week (month and year are parsed but are not fixed-length, so windows and lateness reject them).",
  }),
  'syntax-unknown-time-unit': def<{ unit: string }>({
    severity: 'error',
    title: 'unknown time unit',
    message: (p) => `'${p.unit}' is not a time unit`,
    help: () => 'use MILLISECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR',
    explain: 'EXTRACT, FLOOR/CEIL ... TO, TIMESTAMPADD and intervals take one of the time units MILLISECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR.',
  }),
  'syntax-bad-window-args': def<{ fn: string; detail: string }>({
    severity: 'error',
    title: 'wrong arguments to a window function',
    message: (p) => `${p.fn}: ${p.detail}`,
    help: () =>
      'TUMBLE(rel, col, size [, offset]), HOP(rel, col, slide, size), CUMULATE(rel, col, step, size), SESSION(rel [PARTITION BY cols], col, gap)',
    explain:
      "Window table functions take the relation, its time column, and the window's durations: `TUMBLE(rel, time_col, size [, offset])`, `HOP(rel, time_col, slide, size)`, `CUMULATE(rel, time_col, step, size)`, `SESSION(rel [PARTITION BY cols], time_col, gap)`. Flink's long form `TABLE(TUMBLE(TABLE rel, DESCRIPTOR(col), size))` is accepted too.",
  }),
  'syntax-bad-call-form': def<{ name: string; form: string; allowed: string }>({
    severity: 'error',
    title: 'special argument form on the wrong function',
    message: (p) => `${p.name}(...) does not take the form '${p.form}'`,
    help: (p) => `'${p.form}' is only valid in ${p.allowed}`,
    explain:
      'A few functions have SQL-standard argument forms with keywords: `FLOOR(ts TO MINUTE)`, `CEIL(ts TO HOUR)`, `SUBSTRING(s FROM 2 FOR 3)`, `TRIM(BOTH \' \' FROM s)`, `COUNT(DISTINCT x)`, `COUNT(*)`, `TIMESTAMPADD(MINUTE, 5, ts)`. These forms are not accepted on other functions.',
  }),
  'syntax-unsupported': def<{ what: string; instead: string }>({
    severity: 'error',
    title: 'SQL that pipec does not support',
    message: (p) => `${p.what} is not supported in pipec`,
    help: (p) => p.instead,
    explain:
      'pipec compiles continuous queries over unbounded streams. Some batch-SQL constructs have no meaning there (ORDER BY, LIMIT: a stream has neither an end nor an order) and some join forms are not implemented (RIGHT, FULL, CROSS and comma joins; OVER window aggregates). The help line says what to write instead.',
  }),
  'syntax-double-quoted-string': def<{ text: string }>({
    severity: 'error',
    title: 'string in double quotes',
    message: (p) => `${p.text} is a quoted name, not a string`,
    help: () => "write strings in single quotes: 'kafka'",
    explain: "In SQL, single quotes make a string (`'kafka'`) and double quotes make a name that keeps its case (`\"Order Id\"`). Option values and literals are strings, so they take single quotes.",
  }),
  'syntax-unquoted-option-value': def<{ word: string }>({
    severity: 'error',
    title: 'option value without quotes',
    message: (p) => `option values are literals: '${p.word}' needs quotes`,
    help: (p) => `write '${p.word}'`,
    explain: "The values of `WITH (key = value)` are string, number or boolean literals: `format = 'json'`, `rows_per_second = 100`, `follow = TRUE`. A bare word would read as a name, which options do not take.",
  }),
  'syntax-interval-unquoted': def<{ number: string }>({
    severity: 'error',
    title: 'interval length without quotes',
    message: (p) => `the length of an INTERVAL is written in quotes: INTERVAL '${p.number}' ...`,
    help: (p) => `write INTERVAL '${p.number}' SECOND (or MINUTE, HOUR, DAY)`,
    explain: "SQL writes an interval's length as a string: `INTERVAL '5' SECOND` or `INTERVAL '5 seconds'`. `INTERVAL 5 SECOND` is MySQL's spelling and is not accepted.",
  }),
  'syntax-qualified-function': def<{ name: string }>({
    severity: 'error',
    title: 'qualified function name',
    message: (p) => `'${p.name}(...)': function names cannot have a qualifier`,
    help: () => 'call the function by its plain name',
    explain: 'Functions are built in and have plain names (`SUM(x)`, `LOWER(s)`); `a.b(...)` names nothing. A qualifier belongs on columns: `o.amount`.',
  }),
  'syntax-bad-number': def<{ text: string; what: string }>({
    severity: 'error',
    title: 'invalid number',
    message: (p) => `${p.what} must be a whole number, found ${p.text}`,
    help: () => null,
    explain: 'Counts in compaction policies (`MIN INPUT FILES n`, `RETAIN LAST n`) and type arguments are whole non-negative numbers.',
  }),
  'syntax-bad-compaction-field': def<{ expected: string; found: string }>({
    severity: 'error',
    title: 'unknown compaction condition',
    message: (p) => `expected '${p.expected}' in this condition, found '${p.found}'`,
    help: (p) => `write WHERE ${p.expected} ...`,
    explain:
      "Compaction actions accept one fixed condition each: `REWRITE DATA FILES WHERE file_size < '32 MB'` and `REWRITE DELETE FILES WHERE delete_ratio > 0.5` (a fraction) or `> 50 PERCENT`.",
  }),
} as const;
