// parsePipeYaml's body: YAML text → Document (with source ranges) → schema check → PipeFile.
// Every mistake becomes a coded diagnostic; nothing here throws at the caller.
import { parseDocument, type YAMLError } from 'yaml';
import { LineMap } from '../../diagnostics/span.ts';
import type { PipeFile } from '../ast.ts';
import type { FrontEndContext } from '../front-end.ts';
import { buildPipeFile } from './build-file.ts';
import { findComments } from './comments.ts';
import type { SqlBodyParser } from './build-context.ts';
import { validatePipeYaml } from './validate.ts';
import type { YamlEnv } from './yaml-nodes.ts';

export function parsePipeYamlWith(text: string, ctx: FrontEndContext, sql: SqlBodyParser): PipeFile {
  const lineMap = new LineMap(text);
  const empty = (): PipeFile => ({ file: ctx.file, source: 'yaml', statements: [], suppressions: [], span: lineMap.span(ctx.file, 0, text.length) });
  try {
    // YAML 1.2 core schema: `on`, `yes`, `no` stay strings (`on: revenue_lake` is a key, not true).
    const doc = parseDocument(text, { version: '1.2', schema: 'core', prettyErrors: false, uniqueKeys: true, strict: true });
    const env: YamlEnv = { doc, file: ctx.file, lineMap, text };
    if (doc.errors.length > 0) {
      for (const e of doc.errors) reportYamlError(env, e, ctx);
      return empty();
    }
    for (const w of doc.warnings) reportYamlError(env, w, ctx);
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      ctx.diagnostics.report('yaml-syntax', lineMap.span(ctx.file, 0, 0), { detail: e instanceof Error ? e.message : String(e) });
      return empty();
    }
    // An empty file is an empty pipeline, as an empty .pipe.sql is; its comments are kept (fmt writes them back).
    if (data === null || data === undefined) return { ...empty(), comments: findComments(env, []) };
    validatePipeYaml(env, data, ctx);
    return buildPipeFile({ env, ctx, sql });
  } catch (e) {
    ctx.diagnostics.report('internal-error', lineMap.span(ctx.file, 0, 0), { detail: `yaml front end: ${e instanceof Error ? e.message : String(e)}` });
    return empty();
  }
}

function reportYamlError(env: YamlEnv, e: YAMLError, ctx: FrontEndContext): void {
  const len = env.text.length;
  const start = Math.min(Math.max(e.pos[0], 0), len);
  const end = Math.min(Math.max(e.pos[1], start), len);
  const span = env.lineMap.span(env.file, start, end);
  if (e.code === 'MULTIPLE_DOCS') {
    ctx.diagnostics.report('yaml-multiple-documents', span, {});
    return;
  }
  if (e.name === 'YAMLWarning') {
    ctx.diagnostics.report('yaml-warning', span, { detail: lowerFirst(e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')) });
    return;
  }
  // The package appends " at line L, column C:" and a source excerpt; our renderer shows both.
  const detail = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  ctx.diagnostics.report('yaml-syntax', span, { detail: lowerFirst(detail) });
}

const lowerFirst = (s: string): string => (/^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s);
