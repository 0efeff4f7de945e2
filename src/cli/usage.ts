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
    synopsis: 'pipec check [paths] [--target clickhouse|iceberg|runtime|all] [--format text|json] [--deny-warnings]',
    text: `Parses, resolves schemas, type-checks and lints the specs (every .pipe.sql / .pipe.yaml under
the given files and folders, relative or absolute; default: the \`specs:\` folders of pipec.yaml,
else specs/), then runs the targets' checks in memory, so it reports every warning build would.
Nothing is written. Exit 1 on an error.

  --target T           the targets whose warnings to report (default: all)
  --format text|json   diagnostics as text on stderr (default) or JSON on stdout
  --deny-warnings      warnings fail the command too (for CI)
`,
  },
  build: {
    synopsis: 'pipec build [paths] [--target clickhouse|iceberg|runtime|all] [--out DIR] [--bundle DIR] [--check]',
    text: `Everything check does, then each target's files: generated/<pipeline>/ holds what a reviewer
reads (ClickHouse DDL, Iceberg table specs, plan.txt, runtime/pipeline.gen.mjs and
runtime/bundle.lock.json); the runnable bundles go to a separate, git-ignored folder. Paths
default to the \`specs:\` folders of pipec.yaml (else specs/). Writes only inside --out, and
removes only files a previous build listed in <out>/<pipeline>/.pipec-manifest.json.

  --target T       one target or all (default)
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
    synopsis: 'pipec run <file> [--checkpoint-dir DIR] [--metrics-port N] [--member-id ID]',
    text: `Compiles one spec and runs it in this process until a bounded source ends or Ctrl-C
(which checkpoints and exits cleanly).

  --checkpoint-dir DIR   keep checkpoints there and resume from the last one
  --metrics-port N       serve /metrics and /health on port N
  --member-id ID         this process's member id in a scaled-out pipeline
`,
  },
  diff: {
    synopsis: 'pipec diff <old> <new>',
    text: `Compiles both versions of a spec and reports what the change does to state, sink schemas and
generated files: compatible, needs backfill, or breaking.
`,
  },
  explain: {
    synopsis: 'pipec explain [CODE]',
    text: `Prints the long explanation of a diagnostic code; without a code, lists every code.
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
