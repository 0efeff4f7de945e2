// A write worker (write-build.ts): writes the share of a build's pipelines it is given, exactly
// as the main thread writes its own (write-share.ts), and posts back its report or its failure.
// It loads only the writing modules, so it starts in a few tens of milliseconds.
import { parentPort } from 'node:worker_threads';
import { OutputPathError } from './write-outputs.ts';
import { unpackShare, writeShare, type SharePacket, type WriteOutcome } from './write-share.ts';

// The worker starts before its share is known (its start-up runs beside the main thread's path
// check); the share comes as the first message.
const packet = await new Promise<SharePacket>((resolve) => parentPort!.once('message', resolve));
let outcome: WriteOutcome;
try {
  outcome = { kind: 'written', report: writeShare(unpackShare(packet)) };
} catch (e) {
  const err = e as NodeJS.ErrnoException;
  outcome = {
    kind: 'failed',
    message: err instanceof Error ? err.message : String(e),
    outputPath: e instanceof OutputPathError,
    ...(typeof err?.code === 'string' ? { code: err.code } : {}),
    ...(typeof err?.path === 'string' ? { path: err.path } : {}),
    ...(err instanceof Error && err.stack ? { stack: err.stack } : {}),
  };
}
parentPort!.postMessage(outcome);
