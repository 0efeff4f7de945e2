// The top level of a `.pipe.yaml` document → the statements of a PipeFile, in document order:
// `pipeline` (with its `options`), then each entry of each section where it is written.
import { isMap, visit, type Pair } from 'yaml';
import type { Ident, OptionEntry, PipeFile, PipelineStmt, Statement, Suppression } from '../ast.ts';
import { identOf, optionOf, type Builder } from './build-context.ts';
import { buildSource } from './build-source.ts';
import { buildCatalog, buildCompaction, buildSink, buildView } from './build-statements.ts';
import { joinSpans } from '../../diagnostics/span.ts';
import { findComments, isCommentStart } from './comments.ts';
import { deref, keyText, nodeSpan, pairSpan, pairsOf } from './yaml-nodes.ts';

type SectionBuilder = (b: Builder, pair: Pair<unknown, unknown>, name: Ident, place: string[]) => Statement | null;

const SECTIONS: Record<string, { what: string; build: SectionBuilder }> = {
  catalogs: { what: 'catalog', build: buildCatalog },
  sources: { what: 'source', build: buildSource },
  views: { what: 'view', build: buildView },
  sinks: { what: 'sink', build: buildSink },
  compaction_policies: { what: 'compaction policy', build: buildCompaction },
};

export function buildPipeFile(b: Builder): PipeFile {
  const { env } = b;
  const statements: Statement[] = [];
  const pipelineOptions: OptionEntry[] = [];
  let pipeline: PipelineStmt | null = null;
  let optionsKey: Pair<unknown, unknown> | null = null;
  const root = deref(env, env.doc.contents);
  for (const pair of isMap(root) ? pairsOf(env, root) : []) {
    const key = keyText(pair);
    if (key === 'pipeline') {
      const name = identOf(b, pair.value, 'pipeline');
      if (name) {
        pipeline = { kind: 'pipeline', name, options: pipelineOptions, span: pairSpan(env, pair) };
        statements.push(pipeline);
      }
      continue;
    }
    if (key === 'options') {
      optionsKey = pair;
      for (const p of pairsOf(env, pair.value)) {
        const o = optionOf(b, p, ['options']);
        if (o) pipelineOptions.push(o);
      }
      continue;
    }
    const section = key !== null && Object.hasOwn(SECTIONS, key) ? SECTIONS[key] : undefined;
    if (!section) continue;
    for (const entry of pairsOf(env, pair.value)) {
      const name = identOf(b, entry.key, section.what);
      const entryKey = keyText(entry);
      if (!name || entryKey === null) continue;
      const stmt = section.build(b, entry, name, [key!, entryKey]);
      if (stmt) statements.push(stmt);
    }
  }
  if (pipeline) {
    // The statement covers its options too, wherever they are written.
    if (optionsKey) pipeline.span = joinSpans(pipeline.span, pairSpan(env, optionsKey));
  } else if (optionsKey && pipelineOptions.length > 0) {
    b.ctx.diagnostics.report('yaml-options-without-pipeline', nodeSpan(env, optionsKey.key), { key: pipelineOptions[0]!.key });
  }
  return {
    file: env.file,
    source: 'yaml',
    statements,
    suppressions: findSuppressions(b),
    comments: findComments(env, statements),
    span: env.lineMap.span(env.file, 0, env.text.length),
  };
}

const ALLOW = /#\s*pipec:allow\s+([A-Za-z0-9_-]+(?:[\s,]+[A-Za-z0-9_-]+)*)/;

/**
 * `# pipec:allow CODE` comments (the YAML spelling of `-- pipec:allow CODE`). Lines inside
 * block scalars are SQL text, not YAML comments, so they are skipped.
 */
function findSuppressions(b: Builder): Suppression[] {
  const { env } = b;
  const blocks: [number, number][] = [];
  visit(env.doc, {
    Scalar(_k, node) {
      if ((node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') && node.range) blocks.push([node.range[0], node.range[1]]);
    },
  });
  const out: Suppression[] = [];
  // Lines end as LineMap says (\n, \r\n or a lone \r).
  for (const lm of env.text.matchAll(/[^\r\n]*(?:\r\n|\r|\n|$)/g)) {
    if (lm[0] === '') break;
    const lineStart = lm.index!;
    const line = lm[0].replace(/[\r\n]+$/, '');
    const m = ALLOW.exec(line);
    const hash = m ? lineStart + m.index : -1;
    if (m && isCommentStart(line, m.index) && !blocks.some(([s, e]) => hash > s && hash < e)) {
      let at = lineStart + m.index + m[0].length - m[1]!.length;
      for (const code of m[1]!.split(/([\s,]+)/)) {
        if (code && !/^[\s,]+$/.test(code)) out.push({ code, span: env.lineMap.span(env.file, at, at + code.length) });
        at += code.length;
      }
    }
  }
  return out;
}

