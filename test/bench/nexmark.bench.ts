// Nexmark-style suite (#18): a seeded bid stream and its auctions (nexmark/generator.ts) through
// seven queries (nexmark/queries.ts: projection, HOP, TUMBLE ×2, SESSION, an interval join and an
// upsert stream), each run in the same run by `pipec run` (file sources → NDJSON file sink), by
// DuckDB as a batch query over the same files and, when the Flink venv is installed, by the
// script `pipec build --target flink` writes, at parallelism 1 and 2 (nexmark/engines.ts).
// Prints per query and engine the CPU seconds (whole process tree) and events per CPU second,
// and the ratios pipec/DuckDB and pipec/Flink p1 per CPU second (goals: ≥ 0.5× DuckDB on q1–q4,
// ≥ 0.33× on q5; ≥ 8× Flink p1). Every engine must compute the same answer (row count and a sum
// over the rows; q7: the final table of the upsert stream), else the run fails: a figure of a
// wrong answer is worth nothing. Then start-up to first record and RSS per million open keys,
// each beside its baseline (nexmark/startup.ts).
// BENCH_NEXMARK_EVENTS sets the size (default 300,000; the issue's table used 2,000,000),
// BENCH_NEXMARK_FLINK=0 skips Flink, BENCH_NEXMARK_QUERIES=q2,q6 runs some queries only.
// `npm run bench nexmark` runs it alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeAuctions, writeBids } from './nexmark/generator.ts';
import { QUERIES, type NexmarkQuery } from './nexmark/queries.ts';
import { buildFlinkScript, flinkPython, runDuckDb, runFlink, runPipec, type Figure } from './nexmark/engines.ts';
import { coldStart, openKeys } from './nexmark/startup.ts';

const N = Number(process.env.BENCH_NEXMARK_EVENTS ?? 300_000);
const ONLY = process.env.BENCH_NEXMARK_QUERIES?.split(',').map((s) => s.trim());
const GOAL: Record<string, number> = { q1: 0.5, q2: 0.5, q3: 0.5, q4: 0.5, q5: 0.33 };
const FLINK_GOAL = 8;
const OPEN_KEYS = Number(process.env.BENCH_NEXMARK_KEYS ?? 1_000_000);

const f2 = (n: number): string => n.toFixed(2);
const rate = (f: Figure): string => Math.round(N / f.cpuS).toLocaleString('en');
const load = (): string => loadavg()[0]!.toFixed(1);
const out = (s: string): void => void process.stdout.write(s);

function agrees(f: Figure, d: Figure): boolean {
  return f.rows === d.rows && Math.abs(f.check - d.check) < 1e-6 * Math.max(1, Math.abs(d.check));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-nexmark-'));
  await writeBids(join(dir, 'bids.ndjson'), N);
  await writeAuctions(join(dir, 'auctions.ndjson'), N);
  const python = process.env.BENCH_NEXMARK_FLINK === '0' ? null : flinkPython();
  out(`Nexmark-style bids: ${N.toLocaleString('en')} events (load average ${load()} at the start); CPU seconds of each engine's process tree, lower is better\n`);
  if (!python) out(`Flink: ${process.env.BENCH_NEXMARK_FLINK === '0' ? 'skipped (BENCH_NEXMARK_FLINK=0)' : 'not installed (bash test/services/venv.sh flink), skipped'}\n`);
  out('\nquery | what | rows | pipec CPU s | pipec events/CPU-s | DuckDB CPU s | pipec / DuckDB | goal');
  if (python) out(' | Flink p1 CPU s | Flink p2 CPU s | pipec / Flink p1 | goal');
  out(' | load\n---|---|---|---|---|---|---|---');
  if (python) out('|---|---|---|---');
  out('|---\n');
  const wrong: string[] = [];
  const failed: string[] = [];
  const queries = QUERIES.filter((q: NexmarkQuery) => !ONLY || ONLY.includes(q.id));
  for (const q of queries) {
    const p = runPipec(dir, q);
    const d = await runDuckDb(dir, q);
    if (!agrees(p, d)) wrong.push(`${q.id}: pipec ${p.rows} rows / check ${p.check}, DuckDB ${d.rows} rows / check ${d.check}`);
    const ratio = d.cpuS / p.cpuS;
    const goal = GOAL[q.id];
    let line = `${q.id} | ${q.what} | ${d.rows.toLocaleString('en')} | ${f2(p.cpuS)} | ${rate(p)} | ${f2(d.cpuS)} | ${f2(ratio)}× | ${goal === undefined ? '—' : `≥ ${goal}×${ratio >= goal ? '' : ' (not met)'}`}`;
    if (python) {
      const fl: (Figure | null)[] = [];
      try {
        const script = buildFlinkScript(dir, q);
        for (const par of [1, 2]) {
          try {
            const f = runFlink(python, dir, script, q, par);
            if (!agrees(f, d)) wrong.push(`${q.id}: Flink p${par} ${f.rows} rows / check ${f.check}, DuckDB ${d.rows} rows / check ${d.check}`);
            fl.push(f);
          } catch (err) {
            failed.push((err as Error).message);
            fl.push(null);
          }
        }
      } catch (err) {
        failed.push((err as Error).message);
        fl.push(null, null);
      }
      const [f1, f2_] = fl;
      const fr = f1 ? f1.cpuS / p.cpuS : null;
      line += ` | ${f1 ? f2(f1.cpuS) : 'failed'} | ${f2_ ? f2(f2_.cpuS) : 'failed'} | ${fr === null ? '—' : `${f2(fr)}×`} | ≥ ${FLINK_GOAL}×${fr !== null && fr < FLINK_GOAL ? ' (not met)' : ''}`;
    }
    out(`${line} | ${load()}\n`);
  }
  out(`\n(events/CPU-s counts the ${N.toLocaleString('en')} bids; q6 also reads 10,000 auctions)\n`);

  // ---- item 6: cold start and memory
  const c = await coldStart(dir, Number(process.env.BENCH_NEXMARK_COLD_ROUNDS ?? 5));
  out(`\nstart-up to first record (one-row file → stdout sink, median of spawns; load ${load()}):\n`);
  const start = (what: string, s: typeof c.node): void => out(`  ${what}: first row ${s.firstMs.toFixed(0)} ms, exit ${s.exitMs.toFixed(0)} ms, CPU ${s.cpuMs.toFixed(0)} ms\n`);
  start('pipec run (compiles, then runs)', c.pipecRun);
  start('built bundle (node pipeline.mjs)', c.bundle);
  start('baseline node -e (prints the row)', c.node);
  out(`  → to first row: pipec run ${f2(c.pipecRun.firstMs / c.node.firstMs)}×, bundle ${f2(c.bundle.firstMs / c.node.firstMs)}× the baseline; CPU: ${f2(c.pipecRun.cpuMs / c.node.cpuMs)}×, ${f2(c.bundle.cpuMs / c.node.cpuMs)}×\n`);
  const m = await openKeys(dir, OPEN_KEYS);
  out(`\nRSS per million open keys (TUMBLE 1 h COUNT/SUM by key, ${m.keys.toLocaleString('en')} keys open in one window; load ${load()}):\n`);
  out(`  pipec run: ${m.pipecMiB.toFixed(0)} MiB per million keys (RSS with the keys open minus with one key open, ${m.pipecRssOneKeyMiB.toFixed(0)} MiB)\n`);
  out(`  baseline Map of number → [sum, count] in plain node: ${m.mapMiB.toFixed(0)} MiB per million keys → pipec ${f2(m.pipecMiB / m.mapMiB)}× of it\n`);

  rmSync(dir, { recursive: true, force: true });
  for (const f of failed) out(`\nFAILED ${f}\n`);
  for (const w of wrong) out(`\nDIFFERENT ANSWERS ${w}\n`);
  if (wrong.length || failed.length) process.exitCode = 1;
}

await main();
