// Starts Iceberg's reference REST catalog server (test/services/iceberg-rest) on a free
// loopback port for one test file, and stops it afterwards. Fails loudly with the log tail.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';

const serviceDir = join(import.meta.dirname, '..', '..', 'services', 'iceberg-rest');
const cache = join(serviceDir, '..', '.cache', 'iceberg-rest');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface RestServer {
  uri: string;
  warehouseDir: string;
  stop(): void;
}

export async function startRestCatalog(): Promise<RestServer> {
  const build = spawnSync('bash', [join(serviceDir, 'build.sh')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building the Iceberg REST catalog failed:\n${build.stdout}${build.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'pipec-rest-'));
  const port = await freePort();
  const log = join(dir, 'server.log');
  const fd = openSync(log, 'w');
  const child: ChildProcess = spawn('java', ['-cp', `${cache}/classes:${cache}/lib/*`, 'PipecRestCatalog', String(port), pathToFileURL(join(dir, 'wh')).href, join(dir, 'catalog.db')], {
    stdio: ['ignore', fd, fd],
  });
  const uri = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const r = await fetch(`${uri}/v1/config`);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the Iceberg REST catalog did not start on ${uri}:\n${readFileSync(log, 'utf8').slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { uri, warehouseDir: join(dir, 'wh'), stop: () => child.kill('SIGTERM') };
}
