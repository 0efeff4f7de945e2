// `pipec compact <file>`: runs the pipeline's Iceberg compaction policies once.
import type { CommandContext } from '../context.ts';

export interface CompactArgs {
  file: string | undefined;
}

export async function compactCommand(ctx: CommandContext, args: CompactArgs): Promise<number> {
  if (!args.file) {
    ctx.io.stderr('pipec compact: give one spec file\n');
    return 2;
  }
  // The Iceberg writer that executes policies is not part of this build yet (see the Iceberg issue).
  ctx.io.stderr('pipec compact: the Iceberg writer is not available in this build yet; no table was changed\n');
  return 1;
}
