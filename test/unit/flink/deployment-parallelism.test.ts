// The FlinkDeployment's parallelism comes from the physical plan's pipeline (the `parallelism`
// option, default 1), the value `pipec plan --physical --format json` shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { build } from '../../../src/api.ts';

async function deploymentOf(pipelineWith: string): Promise<{ spec: { job: { parallelism: number } } }> {
  const r = await build({
    sources: { 'p.pipe.sql': `PIPELINE p${pipelineWith};\nCREATE SOURCE g (n INT) WITH (connector = 'datagen', total_rows = '1');\nCREATE SINK out FROM g WITH (connector = 'stdout');` },
    targets: ['flink'],
  });
  const file = Object.entries(r.outputs).find(([p]) => p.endsWith('flink/deployment.yaml'));
  assert.ok(file, r.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
  const docs = String(file[1]).split(/^---$/m).map((d) => parse(d) as { kind: string });
  return docs.find((d) => d.kind === 'FlinkDeployment') as unknown as { spec: { job: { parallelism: number } } };
}

test("parallelism = '4' runs the job at 4; without it, at 1", async () => {
  assert.equal((await deploymentOf(" WITH (parallelism = '4')")).spec.job.parallelism, 4);
  assert.equal((await deploymentOf('')).spec.job.parallelism, 1);
});
