// The CST visitor that builds the AST of src/syntax/ast.ts from the grammar's CST. One method
// per grammar rule (checked by validateVisitor); the work lives in the build-*.ts modules.
import type { CstNode } from 'chevrotain';
import { pipeParser } from '../../../grammar/parser.ts';
import type { QualifiedName } from '../ast.ts';
import { joinSpans } from '../../diagnostics/span.ts';
import { type Children, type SpanMaker, identsAt, need } from './cst.ts';
import * as E from './build-expr.ts';
import * as Q from './build-query.ts';
import * as S from './build-statements.ts';
import { buildType } from './build-type.ts';

const BaseVisitor = pipeParser.getBaseCstVisitorConstructor();

type C = Children;
type N = CstNode;

class AstBuilder extends BaseVisitor {
  /** Set for each run by `withSpans`; the builder itself is created once. */
  spans!: SpanMaker;

  constructor() {
    super();
    this.validateVisitor();
  }

  // Pass the node along: spans need its location, which Chevrotain's visit() drops.
  override visit(n: CstNode | CstNode[]): any {
    const one = Array.isArray(n) ? n[0] : n;
    if (!one) return undefined;
    return (this as any)[one.name](one.children, one);
  }

  statement(c: C) { return S.buildStatement(this, c); }
  pipelineStmt(_c: C, n: N) { return S.buildPipeline(this, n); }
  createStmt(_c: C, n: N) { return S.buildCreate(this, n); }
  sourceBody(_c: C, n: N) { return S.buildSource(this, n); }
  sourceElement(c: C) { return S.buildSourceElement(this, c); }
  // Handled inside sourceElement, which needs to know which kind it holds.
  watermarkDef() { return need(undefined); }
  primaryKeyDef() { return need(undefined); }
  columnDef() { return need(undefined); }
  dataType(_c: C, n: N) { return buildType(this, n); }
  typeArg() { return need(undefined); }
  withOptions(c: C) { return S.buildWithOptions(this, c); }
  optionEntry(_c: C, n: N) { return S.buildOption(this, n); }
  viewBody(_c: C, n: N) { return S.buildView(this, n); }
  emitClause() { return need(undefined); }
  onLateClause() { return need(undefined); }
  sinkBody(_c: C, n: N) { return S.buildSink(this, n); }
  catalogBody(_c: C, n: N) { return S.buildCatalog(this, n); }
  compactionBody(_c: C, n: N) { return S.buildCompaction(this, n); }
  compactionAction(c: C) {
    return this.visit(need(c.rewriteDataAction ?? c.rewriteDeleteAction ?? c.expireSnapshotsAction ?? c.removeOrphansAction) as CstNode[]);
  }
  rewriteDataAction(_c: C, n: N) { return S.buildRewriteData(this, n); }
  rewriteDeleteAction(_c: C, n: N) { return S.buildRewriteDelete(this, n); }
  expireSnapshotsAction(_c: C, n: N) { return S.buildExpire(this, n); }
  removeOrphansAction(_c: C, n: N) { return S.buildRemoveOrphans(this, n); }

  query(_c: C, n: N) { return Q.buildQuery(this, n); }
  selectQuery(_c: C, n: N) { return Q.buildSelect(this, n); }
  selectItem(_c: C, n: N) { return Q.buildSelectItem(this, n); }
  fromClause(c: C) { return Q.buildFromClause(this, c); }
  joinClause() { return need(undefined); }
  fromPrimary(_c: C, n: N) { return Q.buildFromPrimary(this, n); }
  tableRef(_c: C, n: N) { return Q.buildTableRef(this, n); }
  subqueryRef() { return need(undefined); }
  longWindow(_c: C, n: N) { return Q.buildLongWindow(this, n); }
  windowCall(_c: C, n: N) { return Q.buildWindowCall(this, n); }
  windowArg(c: C) { return Q.buildWindowArg(this, c); }

  expr(c: C) { return E.buildChain(this, c); }
  exprUnit(c: C) { return E.buildUnit(this, c); }
  predicateSuffix() { return E.buildSuffixAlone(); }
  arith(c: C) { return E.buildChain(this, c); }
  arithUnit(c: C) { return E.buildUnit(this, c); }
  atom(_c: C, n: N) { return E.buildAtom(this, n); }
  intervalLit(_c: C, n: N) { return E.buildInterval(this, n); }
  caseExpr(_c: C, n: N) { return E.buildCase(this, n); }
  castExpr(_c: C, n: N) { return E.buildCast(this, n); }
  extractExpr(_c: C, n: N) { return E.buildExtract(this, n); }
  // Read by atom together with the function name.
  callArgs() { return need(undefined); }

  qualifiedName(c: C): QualifiedName {
    const parts = identsAt(c, 'parts', this.spans);
    return { parts, span: joinSpans(need(parts[0]).span, need(parts[parts.length - 1]).span) };
  }
}

const builder = new AstBuilder();

/** Builds the AST of one CST node (a statement, query or expression) in the file of `spans`. */
export function buildAst<T>(cst: CstNode, spans: SpanMaker): T {
  builder.spans = spans;
  return builder.visit(cst) as T;
}
