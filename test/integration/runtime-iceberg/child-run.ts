// Runs one pipeline spec in this process (compile + runPipeline), for the crash tests: the
// parent kills this process (or the sink's PIPEC_TEST_ICEBERG_CRASH hook does) and restarts it.
// Arguments: <spec file> <base dir> <checkpoint dir>; the environment resolves `${VAR}`s.
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';

const [spec, baseDir, checkpointDir] = process.argv.slice(2);
const env = { ...process.env };
const r = await compileFile(spec!, { cwd: baseDir!, env: { get: (n) => env[n] } });
if (!r.plan || r.diagnostics.hasErrors) {
  process.stderr.write(`compile failed: ${r.diagnostics.sorted().map((d) => d.message).join('; ')}\n`);
  process.exit(3);
}
const { exitCode } = await runPipeline(r.plan, { baseDir: baseDir!, env, checkpointDir, handleSignals: false });
process.exit(exitCode);
