// Diagnostic codes of the `.pipe.yaml` front end (src/syntax/yaml/): YAML syntax, the shape
// checked against grammar/pipe-yaml.schema.json, and the values only the YAML form spells.
import { def } from '../diagnostic.ts';

const didYouMean = (s: string | null): string => (s ? `; did you mean '${s}'?` : '');

export const yamlCodes = {
  'yaml-syntax': def<{ detail: string }>({
    severity: 'error',
    title: 'YAML syntax error',
    message: (p) => `YAML syntax error: ${p.detail}`,
    help: () => 'check indentation (spaces only), the colon after each key, and that quotes and brackets are closed',
    explain:
      'The file is not well-formed YAML, so it cannot be read as a pipeline. Common causes: a tab used for indentation, a key whose value is indented less than the key, an unclosed `[`, `{` or quote, or the same key written twice in one mapping. The position points at where the YAML parser gave up; the real mistake is often on the line above.',
  }),
  'yaml-warning': def<{ detail: string }>({
    severity: 'warning',
    title: 'YAML construct ignored',
    message: (p) => `YAML: ${p.detail}`,
    help: () => 'remove the tag or directive; a .pipe.yaml needs only plain mappings, lists and scalars',
    explain:
      'The YAML parser met something it does not understand and ignored it, such as a custom tag (`!mytag value`) or an unknown directive (`%FOO`). The value is read as if the tag were not there, which may not be what was meant.',
  }),
  'yaml-multiple-documents': def<Record<string, never>>({
    severity: 'error',
    title: 'more than one YAML document',
    message: () => 'a .pipe.yaml file holds one pipeline: found a second YAML document (after ---)',
    help: () => 'put each pipeline in its own .pipe.yaml file',
    explain:
      'A `.pipe.yaml` file describes exactly one pipeline, like a `.pipe.sql` file. A `---` line starts a second YAML document, which pipec would otherwise have to ignore silently. Split the documents into separate files.',
  }),
  'yaml-unknown-key': def<{ key: string; where: string; suggestion: string | null; allowed: string[] }>({
    severity: 'error',
    title: 'unknown key',
    message: (p) => `unknown key '${p.key}' in ${p.where}${didYouMean(p.suggestion)}`,
    help: (p) => (p.allowed.length ? `allowed keys here: ${p.allowed.join(', ')}` : null),
    explain:
      'The key is not part of the `.pipe.yaml` format at this place. In `sources`, `views`, `sinks`, `catalogs`, `options` and datagen `fields`, any key with a plain value (string, number, boolean) is a `WITH` option and is checked later against the connector; keys with a mapping or list value must be one of the structural keys (`columns`, `watermark`, `primary_key`, `fields`, `on_late`, ...). Closed mappings such as `watermark`, a column, or a compaction action accept only their own keys. Example: `watermrk: { column: ts, delay: 5s }` → `watermark: { column: ts, delay: 5s }`.',
  }),
  'yaml-missing-key': def<{ key: string; where: string }>({
    severity: 'error',
    title: 'required key missing',
    message: (p) => `${p.where} needs a '${p.key}' key`,
    help: (p) => `add '${p.key}: ...' to ${p.where}`,
    explain:
      'A mapping lacks a key it cannot do without: a view needs `query`, a watermark needs `column`, a column needs `type`, a compaction policy needs `on` and `actions`. See the `.pipe.yaml` reference for the full list.',
  }),
  'yaml-wrong-type': def<{ where: string; expected: string; found: string }>({
    severity: 'error',
    title: 'value of the wrong kind',
    message: (p) => `${p.where} must be ${p.expected}, found ${p.found}`,
    help: () => 'YAML reads `5` as a number, `true` as a boolean and `[a, b]` as a list; quote a value to make it a string',
    explain:
      'Each key of the `.pipe.yaml` format expects one kind of value: a string, a number, a mapping, a list. Option values (the connector settings) must be plain scalars. Example: `primary_key: id` must be a list, `primary_key: [id]`; `columns:` with nothing after it is null, not an empty mapping.',
  }),
  'yaml-bad-value': def<{ where: string; value: string; allowed: string[]; suggestion: string | null }>({
    severity: 'error',
    title: 'value not allowed',
    message: (p) => `${p.where} cannot be '${p.value}'${didYouMean(p.suggestion)}`,
    help: (p) => `allowed values: ${p.allowed.join(', ')}`,
    explain:
      'The key takes one of a fixed set of values. Example: `emit` is `on_window_close` or `changes`; `on_late` is `drop` or `{ to: <sink or view> }`; a datagen field `kind` is `sequence`, `random` or `choice`.',
  }),
  'yaml-invalid': def<{ where: string; detail: string }>({
    severity: 'error',
    title: 'value breaks a rule of the format',
    message: (p) => `${p.where}: ${p.detail}`,
    help: () => null,
    explain:
      'The value has the right kind but breaks a rule of the `.pipe.yaml` format: an empty list where at least one item is needed, a key that is not an option name, or a compaction action mapping with more than one action in it (write one action per list item).',
  }),
  'yaml-conflicting-keys': def<{ a: string; b: string; where: string }>({
    severity: 'error',
    title: 'keys that exclude each other',
    message: (p) => `${p.where} has both '${p.a}' and '${p.b}'; write only one`,
    help: (p) => `keep '${p.a}' or '${p.b}', not both`,
    explain:
      'Some keys are alternatives: a watermark has a `delay` (the common case, `column - INTERVAL delay`) or a SQL `expr`, not both; a sink reads `from` a view or has its own `query`, not both.',
  }),
  'yaml-bad-duration': def<{ where: string; text: string }>({
    severity: 'error',
    title: 'not a duration',
    message: (p) => `${p.where}: '${p.text}' is not a duration`,
    help: () => "write a number and a unit: 500ms, 5s, 30 s, 5 min, 1h, 7d, or '5 seconds'",
    explain:
      'Durations in `.pipe.yaml` (`delay`, `allowed_lateness`, `older_than`, `schedule`) are a number followed by a unit: `ms`, `s`, `min`, `h`, `d` (`5s`, `30 s`, `1 h`) or a unit word (`5 seconds`, `2 minutes`). `5s` is the same as SQL `INTERVAL \'5\' SECOND`. A bare number has no unit and is rejected. As in SQL, `2 months` reads as a duration here and is then rejected by the checker, since months and years are not fixed lengths.',
  }),
  'yaml-bad-type': def<{ text: string; detail: string }>({
    severity: 'error',
    title: 'not a SQL type',
    message: (p) => `'${p.text}' is not a SQL type: ${p.detail}`,
    help: () => 'types: BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING, BYTES, DATE, TIMESTAMP(p), TIMESTAMP_LTZ(p), ARRAY<T>, MAP<K, V>, ROW<name T, ...>',
    explain:
      'A column `type` in `.pipe.yaml` is written exactly as in `.pipe.sql`: `BIGINT`, `DECIMAL(12, 2)`, `TIMESTAMP(3)`, `ARRAY<STRING>`, `MAP<STRING, BIGINT>`, `ROW<id BIGINT, name STRING>`. `NOT NULL` may follow any type; on the column itself prefer `not_null: true`.',
  }),
  'yaml-bad-name': def<{ name: string; what: string }>({
    severity: 'error',
    title: 'not a valid name',
    message: (p) => `'${p.name}' is not a valid ${p.what} name`,
    help: (p) => `use letters, digits and _ (not starting with a digit), or quote it the SQL way: '"${p.name.replace(/"/g, '""')}"'`,
    explain:
      'Names of sources, views, sinks, catalogs, policies and columns follow SQL identifier rules: a plain name (letters, digits, `_`, not starting with a digit) is case-insensitive; any other name must be written in SQL double quotes, which keep case. In YAML the double quotes are part of the value, so wrap them in single quotes: `\'"Order Events"\': { ... }`.',
  }),
  'yaml-unquoted-comma': def<{ text: string }>({
    severity: 'error',
    title: 'comma splits a value inside { ... }',
    message: (p) => `the comma in '${p.text}' ends the value inside { ... }: quote it`,
    help: (p) => `write '${p.text.replace(/'/g, "''")}' in quotes, or use a block mapping (one key per line)`,
    explain:
      'Inside a YAML flow mapping `{ ... }` a comma separates entries, so `{ type: DECIMAL(12, 2) }` reads as `type: DECIMAL(12` plus a stray key `2)`. Quote the value (`{ type: \'DECIMAL(12, 2)\' }`) or write the mapping in block style, one key per line.',
  }),
  'yaml-options-without-pipeline': def<{ key: string }>({
    severity: 'error',
    title: 'pipeline options without a pipeline name',
    message: (p) => `pipeline options (such as '${p.key}') need a 'pipeline: <name>' key at the top level`,
    help: () => 'add `pipeline: <name>` at the top of the file',
    explain:
      'The top-level `options:` mapping holds the options of the pipeline, the YAML spelling of `PIPELINE name WITH (...)`. As in SQL, options come with a pipeline name: add `pipeline: <name>`. Without options the name is optional and defaults to the file name.',
  }),
  'yaml-dotted-field-option': def<{ key: string; column: string; option: string }>({
    severity: 'error',
    title: 'datagen field option written flat',
    message: (p) => `write '${p.key}' under 'fields:' as 'fields: { ${p.column}: { ${p.option}: ... } }'`,
    help: () => 'datagen per-column options live in the nested `fields` mapping of the source',
    explain:
      'The SQL option `fields.amount.kind = \'random\'` is spelled in YAML as a nested mapping: `fields: { amount: { kind: random, min: 1, max: 100 } }`. Each SQL construct has exactly one YAML spelling, so the flat dotted key is rejected.',
  }),
} as const;
