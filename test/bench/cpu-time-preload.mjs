// Preloaded (`node --import`) into a process the compile bench measures: at exit it writes the
// process's own CPU time (user + system, ms) to PIPEC_BENCH_CPU_FILE. On a shared machine wall
// time mostly measures the other jobs; CPU time is the figure to compare across runs. (Child
// processes, e.g. esbuild's service, are not included.)
import { writeFileSync } from 'node:fs';

const file = process.env.PIPEC_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(file, String((u.userCPUTime + u.systemCPUTime) / 1000));
  });
}
