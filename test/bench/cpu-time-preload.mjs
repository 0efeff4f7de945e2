// Preloaded (`node --import`) into a process a bench measures: at exit it writes the process's
// own CPU time (user + system, ms) to PIPEC_BENCH_CPU_FILE. On a shared machine wall time mostly
// measures the other jobs; CPU time is the figure to compare across runs. (Child processes, e.g.
// esbuild's service, are not included.)
//
// With PIPEC_BENCH_THREADS_FILE, each JavaScript thread also appends its own CPU time there
// when it ends (`main <ms>` or `worker <ms>`, from Linux's /proc/thread-self/stat): worker
// threads inherit the preload with the parent's exec arguments. What the process used beyond
// those threads went to V8's own threads (garbage collection, compilation) and libuv's I/O pool.
//
// With PIPEC_BENCH_SYS_FILE, the process's system (kernel) CPU time alone (ms) is written there
// too: a build's file creation is kernel work, and how much of it there is depends on what the
// disk did just before (see compile.bench.ts).
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** This thread's CPU time (ms): utime + stime of /proc/thread-self/stat, in USER_HZ (100 a second); null off Linux. */
function threadCpuMs() {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const file = process.env.PIPEC_BENCH_CPU_FILE;
const threadsFile = process.env.PIPEC_BENCH_THREADS_FILE;
process.on('exit', () => {
  if (isMainThread && file) {
    const u = process.resourceUsage();
    writeFileSync(file, String((u.userCPUTime + u.systemCPUTime) / 1000));
    if (process.env.PIPEC_BENCH_SYS_FILE) writeFileSync(process.env.PIPEC_BENCH_SYS_FILE, String(u.systemCPUTime / 1000));
  }
  const ms = threadsFile ? threadCpuMs() : null;
  if (ms !== null) appendFileSync(threadsFile, `${isMainThread ? 'main' : 'worker'} ${ms}\n`);
});
