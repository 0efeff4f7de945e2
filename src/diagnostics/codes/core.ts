// Codes of the driver and CLI: files, internal errors, environment substitution.
import { def } from '../diagnostic.ts';

export const coreCodes = {
  'file-not-found': def<{ path: string }>({
    severity: 'error',
    title: 'input file not found',
    message: (p) => `cannot read '${p.path}'`,
    help: () => 'check the path; pipec reads .pipe.sql and .pipe.yaml files and directories of them',
    explain: 'A path given to pipec does not exist or cannot be read. Directories are searched for `.pipe.sql` and `.pipe.yaml` files.',
  }),
  'missing-env-var': def<{ name: string }>({
    severity: 'error',
    title: 'environment variable not set',
    message: (p) => `\${${p.name}} is not set in the environment or the active profile`,
    help: (p) => `export ${p.name}=... or add it to a profile in pipec.yaml and pass --profile`,
    explain:
      'A `${NAME}` inside an option value (`WITH (...)`, or an option of a YAML spec) is replaced by the environment variable NAME, or by the value of the active profile in `pipec.yaml`. A missing variable is an error, never an empty string, because an empty broker list or URL fails later and far from its cause.',
  }),
  'env-in-sql-literal': def<{ name: string }>({
    severity: 'warning',
    title: '${NAME} inside a SQL string literal is not substituted',
    message: (p) => `\${${p.name}} in this string literal stays as written: it is not replaced by a value`,
    help: () => 'substitution applies to WITH options only; to compare with a configured value, write the value itself, or pass it through an option the connector reads',
    explain:
      'pipec replaces `${NAME}` only in option values (`WITH (...)` and the options of a YAML spec), where generated files keep the `${NAME}` template and the value is read at run time. Inside a query, a string literal is data: `WHERE v <> \'${MY_TOKEN}\'` compares with the text `${MY_TOKEN}` itself, as in Flink SQL, which has no substitution in literals. Substituting there would compile the value (often a secret) into the plan, the generated program and the ClickHouse DDL. Write `-- pipec:allow env-in-sql-literal` above the statement if the text `${...}` is really meant.',
  }),
  'internal-error': def<{ detail: string }>({
    severity: 'error',
    title: 'internal compiler error',
    message: (p) => `internal error: ${p.detail}`,
    help: () => 'this is a bug in pipec; please report it with the spec that triggered it',
    explain: 'pipec hit a state it did not expect. This is always a bug in pipec, not in your spec. Please report it with the input file.',
  }),
  'duplicate-pipeline-name': def<{ name: string; other: string }>({
    severity: 'error',
    title: 'two specs build the same pipeline',
    message: (p) => `pipeline '${p.name}' is also built from ${p.other}`,
    help: () => 'rename one pipeline with a PIPELINE statement or rename the file',
    explain:
      'Each pipeline writes its outputs to `generated/<pipeline>/`. Two specs with the same pipeline name (the file base name unless a `PIPELINE` statement names it) would overwrite each other.',
  }),
  'lint-suppressed-unknown': def<{ code: string }>({
    severity: 'warning',
    title: 'unknown code in a pipec:allow comment',
    message: (p) => `'-- pipec:allow ${p.code}' names no known diagnostic code`,
    help: () => 'run `pipec explain` with the code shown in the warning you meant to silence',
    explain: '`-- pipec:allow CODE` silences one warning on the statement that follows it. The code named does not exist, so the comment silences nothing.',
  }),
  'output-path-collision': def<{ pipeline: string; path: string; other: string }>({
    severity: 'error',
    title: 'two outputs of a pipeline would be written to the same file',
    message: (p) => `pipeline '${p.pipeline}': ${p.path} and ${p.other} are the same file on a case-insensitive file system, or the same path`,
    help: () => 'rename one of the Iceberg sinks or compaction policies (names that differ only in case, or a sink named like a policy file)',
    explain:
      'Each output of a pipeline gets its own file under `<out>/<pipeline>/`. When two names give the same path — names that differ only in upper/lower case (one file on macOS and Windows), or an Iceberg sink named `maintenance` next to a policy named `metadata` — one output would silently overwrite the other, so the build stops instead.',
  }),
  'not-a-spec-file': def<{ path: string }>({
    severity: 'error',
    title: 'not a .pipe.sql or .pipe.yaml file',
    message: (p) => `'${p.path}' is not a spec file: pipec reads files ending in .pipe.sql, .pipe.yaml or .pipe.yml`,
    help: () => 'rename the file, or give the folder that holds the specs',
    explain:
      'The ending of a spec file says how to read it: `.pipe.sql` is the SQL form, `.pipe.yaml` (or `.pipe.yml`) the YAML twin. Any other file given to pipec is refused rather than guessed at (a SQL file read as YAML gives confusing errors).',
  }),
} as const;
