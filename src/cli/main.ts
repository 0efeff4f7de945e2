// Entry point of the `pipec` CLI: parses argv and dispatches to a command in ./commands/.
// User errors end with a diagnostic and exit 1; an unexpected exception is reported as an
// internal error (a bug), never as a bare stack trace.
const USAGE = `pipec — a compiler for streaming pipelines

usage:
  pipec check [paths]                 parse, type-check and lint
  pipec build [paths] [--target T] [--out DIR] [--check]
  pipec plan <file> [--format text|json|dot]
  pipec run <file> [--profile P]
  pipec diff <old> <new>
  pipec explain <CODE>
  pipec fmt [paths] [--to yaml|sql]
  pipec compact <file>
`;

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  process.stderr.write(`pipec: unknown command '${command}'\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`pipec: internal error — this is a bug in pipec, please report it with the spec you compiled.\n${detail}\n`);
    process.exitCode = 70;
  },
);
