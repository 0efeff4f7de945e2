// The CLI's help texts: the overview (`pipec help`, `pipec` alone) and one page per command
// (`pipec <cmd> --help`, `pipec help <cmd>`). Kept beside main.ts's option table so a new
// option is documented where it is parsed.

const COMMON = `common options:
  --profile NAME    connection values from a profile of pipec.yaml (the environment overrides)
  --no-color        plain diagnostics even on a terminal
  -h, --help        this help
`;

export const COMMAND_HELP: Record<string, { synopsis: string; text: string }> = {
  check: {
    synopsis: 'pipec check [paths] [--target clickhouse|iceberg|runtime|flink|all] [--format text|json] [--deny-warnings]',
    text: `Parses, resolves schemas, type-checks and lints the specs (every .pipe.sql / .pipe.yaml under
the given files and folders, relative or absolute; default: the \`specs:\` folders of pipec.yaml,
else specs/), then runs the targets' checks in memory, so it reports every warning build would.
Nothing is written. Exit 1 on an error.

  --target T           the targets whose warnings to report (default: pipec.yaml's targets:,
                       else all, which leaves out the opt-in flink: e.g. --target all,flink)
  --format text|json   diagnostics as text on stderr (default) or JSON on stdout
  --deny-warnings      warnings fail the command too (for CI)
`,
  },
  build: {
    synopsis: 'pipec build [paths] [--target clickhouse|iceberg|runtime|flink|all] [--out DIR] [--bundle DIR] [--check]',
    text: `Everything check does, then each target's files: generated/<pipeline>/ holds what a reviewer
reads (ClickHouse DDL, Iceberg table specs, plan.txt, runtime/pipeline.gen.mjs and
runtime/bundle.lock.json); the runnable bundles go to a separate, git-ignored folder. Paths
default to the \`specs:\` folders of pipec.yaml (else specs/). Writes only inside --out, and
removes only files a previous build listed in <out>/<pipeline>/.pipec-manifest.json.

  --target T       targets, comma-separated, or all (default: pipec.yaml's targets:, else
                   all = every target but the opt-in flink: --target flink or all,flink)
  --out DIR        where the reviewable files go (default: generated)
  --bundle DIR     where runtime bundles go, one DIR/<pipeline>/pipeline.mjs each
                   (default: dist/bundles; run one with \`node DIR/<pipeline>/pipeline.mjs\`)
  --check          write nothing; exit 1 when the files under --out differ from a fresh build
  --format, --deny-warnings   as for check
`,
  },
  plan: {
    synopsis: 'pipec plan <file> [--format text|json|dot] [--no-optimize] [--physical]',
    text: `Prints the optimized plan of one spec: keys, changelog modes, state bounds and watermarks.

  --format text|json|dot   output form (default: text)
  --no-optimize            the plan before optimization
  --physical               the physical plan every target reads: resolved connector configs
                           (delivery, acks, commit intervals, dedup...), normalizes, panes,
                           partition keys, watermark paths and sink commit points
`,
  },
  run: {
    synopsis: 'pipec run <file> [--checkpoint-dir DIR] [--metrics-port N] [--member-id ID] [--workers N]',
    text: `Compiles one spec and runs it in this process until a bounded source ends or Ctrl-C
(which checkpoints and exits cleanly).

  --checkpoint-dir DIR   keep checkpoints there and resume from the last one
  --metrics-port N       serve /metrics and /health on port N
  --member-id ID         this process's member id in a scaled-out pipeline
  --workers N            run on N threads, each a key partition of the stateful operator
                         (file sources into a window, GROUP BY or interval join). Default: one
                         per core when the plan runs on workers, a source matches several
                         files and the input is 64 MiB or more, with no status line or
                         --metrics-port (those run on one thread); else 1
`,
  },
  init: {
    synopsis: 'pipec init [dir]',
    text: `Writes a working project into dir (default: here): a datagen → file spec and its test,
pipec.yaml with a local profile, a CI workflow (.github/workflows/pipec.yml) running
\`pipec check --deny-warnings\`, \`pipec test\` and \`pipec build --check\`, .gitignore entries, and
generated/ from a first build. Refuses to overwrite any file.
`,
  },
  test: {
    synopsis: 'pipec test [paths] [--target runtime,clickhouse,flink] [--update] [--reporter text|junit|json]',
    text: `Runs the test files (<name>.pipe.test.yaml) under the paths (default: the spec folders) on
the runtime, in this process: scripted rows, watermarks, processing time, idle partitions,
checkpoints and a crash with restart, then the expected rows of each sink (docs/testing.md).

  --target LIST          where to play the tests: runtime (default), clickhouse (the ClickHouse
                         target's DDL on chdb, a private session per test), flink (the Flink
                         script on PyFlink's mini-cluster, every test in one job), comma-separated
  --chdb-python PATH     the Python with chdb for --target clickhouse (default: PIPEC_CHDB_PYTHON,
                         else python3)
  --flink-python PATH    the Python with PyFlink (apache-flink 2.x) for --target flink (default:
                         PIPEC_FLINK_PYTHON, else python3)
  --update               write the rows each runtime test observed into its expect: (review the diff)
  --reporter KIND        text (default), junit (JUnit XML) or json, on stdout
`,
  },
  diff: {
    synopsis: 'pipec diff <old> <new> | pipec diff --base <git-ref> [paths]',
    text: `Compiles both versions of a spec and reports what the change does to state, filters and
projections, sink schemas and generated files (header-only differences ignored): compatible,
needs backfill, or breaking. Exit 1 when breaking.

State: each stateful operator (window and GROUP BY aggregates, joins, changelog normalize),
each source (its position) and each sink (its commit progress) has a state fingerprint under a
stable uid (\`revenue_1m/window\`). \`pipec run\` resumes from a checkpoint when every source and
operator finds its uid with the same fingerprint (new sinks start empty; removed parts are
dropped), and diff reads the same fingerprints through the same check: "checkpoint: resumes"
here means \`pipec run\` resumes. A sink's filter or projection is compatible, but listed.

  --base REF   compare the specs under [paths] (default: the spec folders) as they are at the
               git revision REF (read with git show, no checkout) with the working tree
`,
  },
  explain: {
    synopsis: 'pipec explain [CODE | CONNECTOR[.OPTION]]',
    text: `Prints the long explanation of a diagnostic code; without a code, lists every code and
connector. \`pipec explain kafka\` lists a connector's source and sink options (type, required,
default, secret, what it does); \`pipec explain kafka.startup\` shows one option.
`,
  },
  fmt: {
    synopsis: 'pipec fmt [paths] [--to yaml|sql] [--write | --check | --diff]',
    text: `Formats specs canonically, or converts between the SQL and YAML forms, and prints the result to
stdout (several files: each after a comment naming it). Comments and the notation of values
(\`30 PERCENT\`, \`\${VAR}\`) are kept.

  --to yaml|sql   convert instead of reformatting
  --write         write the result: in place, or next to the input when converting
  --check         write nothing; exit 1 when a file is not formatted (for CI)
  --diff          print a unified diff of what --write would change (with --check: and exit 1)
`,
  },

  compact: {
    synopsis: 'pipec compact <file>',
    text: `Runs the pipeline's Iceberg compaction policies once, each action an atomic commit.
`,
  },
  query: {
    synopsis: "pipec query '<sql>' [paths] [--format table|csv|json] [--snapshot ID]",
    text: `Runs one DuckDB SQL statement over what local runs of the specs wrote. Every file sink
(NDJSON, Parquet) and Iceberg sink (filesystem or sql catalog) is a table named by the sink,
also as <pipeline>.<sink>; paths resolve as \`pipec run\` resolves them (against the spec's
folder). Iceberg tables are read at their current snapshot with deletes applied, by pipec's
own reader (no DuckDB extension, nothing downloaded). Paths default as for check.

  --format table|csv|json   a text table (default), CSV with a header, or one JSON object a line
  --snapshot ID             read the Iceberg table that has snapshot ID as of that snapshot
`,
  },
  help: {
    synopsis: 'pipec help [command]',
    text: `Prints the overview, or one command's help.
`,
  },
};

export const USAGE = `pipec — a compiler for streaming pipelines

usage:
${Object.values(COMMAND_HELP)
  .map((c) => `  ${c.synopsis}`)
  .join('\n')}
  pipec --version

${COMMON}
\`pipec <command> --help\` for one command.
`;

export function commandHelp(command: string): string | null {
  const c = COMMAND_HELP[command];
  return c ? `usage: ${c.synopsis}\n\n${c.text}\n${COMMON}` : null;
}
