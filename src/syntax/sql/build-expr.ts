// CST expression rules → ast.Expr. The grammar encodes precedence by rule nesting (OR < AND <
// NOT < predicates < + - || < * / % < unary); here each level folds its operands left to right.
import type { CstNode, IToken } from 'chevrotain';
import type { BinaryOp, Expr, Ident, IntervalLit, TimeUnit } from '../ast.ts';
import { joinSpans } from '../../diagnostics/span.ts';
import { substituteEnv } from '../env-subst.ts';
import { buildType } from './build-type.ts';
import { type Children, type SpanMaker, identFromToken, need, node, nodes, tok, toks, unquoteString } from './cst.ts';
import { intervalMs, keywordTimeUnit, parseDurationText } from './time-units.ts';

export interface ExprBuilder {
  spans: SpanMaker;
  visit(n: CstNode): any;
}

const expr = (b: ExprBuilder, n: CstNode | undefined): Expr => b.visit(need(n)) as Expr;

function foldLeft(b: ExprBuilder, operands: CstNode[], ops: BinaryOp[]): Expr {
  let acc = expr(b, operands[0]);
  for (let i = 1; i < operands.length; i++) {
    const right = expr(b, operands[i]);
    acc = { kind: 'binary', op: need(ops[i - 1]), left: acc, right, span: joinSpans(acc.span, right.span) };
  }
  return acc;
}

export function buildOr(b: ExprBuilder, c: Children): Expr {
  const ops = nodes(c, 'operands');
  return foldLeft(b, ops, ops.slice(1).map(() => 'or' as const));
}

export function buildAnd(b: ExprBuilder, c: Children): Expr {
  const ops = nodes(c, 'operands');
  return foldLeft(b, ops, ops.slice(1).map(() => 'and' as const));
}

export function buildNot(b: ExprBuilder, c: Children): Expr {
  let e = expr(b, node(c, 'predicate'));
  const nots = toks(c, 'nots');
  for (let i = nots.length - 1; i >= 0; i--) {
    e = { kind: 'unary', op: 'not', operand: e, span: joinSpans(b.spans.token(nots[i]!), e.span) };
  }
  return e;
}

const COMP_OPS: Record<string, BinaryOp> = { Eq: '=', DoubleEq: '=', NotEq: '<>', LtEq: '<=', GtEq: '>=', Lt: '<', Gt: '>' };

export function buildPredicate(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  const operand = expr(b, node(c, 'operand'));
  const span = b.spans.node(n);
  const compOp = tok(c, 'compOp');
  if (compOp) {
    if (compOp.tokenType.name === 'DoubleEq') b.spans.ctx.diagnostics.report('syntax-double-equals', b.spans.token(compOp), {});
    const right = expr(b, node(c, 'right'));
    return { kind: 'binary', op: need(COMP_OPS[compOp.tokenType.name]), left: operand, right, span };
  }
  if (c.IS) return { kind: 'is_null', operand, negated: tok(c, 'isNot') !== undefined, span };
  const negated = tok(c, 'negated') !== undefined;
  if (c.IN) return { kind: 'in', operand, list: nodes(c, 'inList').map((x) => expr(b, x)), negated, span };
  if (c.BETWEEN) return { kind: 'between', operand, low: expr(b, node(c, 'low')), high: expr(b, node(c, 'high')), negated, span };
  if (c.LIKE) return { kind: 'like', operand, pattern: expr(b, node(c, 'pattern')), negated, span };
  return operand;
}

const ARITH_OPS: Record<string, BinaryOp> = { Plus: '+', Minus: '-', Concat: '||', Star: '*', Slash: '/', PercentSign: '%' };

export function buildArith(b: ExprBuilder, c: Children): Expr {
  const ops = toks(c, 'ops').map((t) => need(ARITH_OPS[t.tokenType.name]));
  return foldLeft(b, nodes(c, 'operands'), ops);
}

export function buildUnary(b: ExprBuilder, c: Children): Expr {
  const inner = node(c, 'unary');
  const minus = tok(c, 'Minus');
  if (minus) {
    const operand = expr(b, inner);
    return { kind: 'unary', op: '-', operand, span: joinSpans(b.spans.token(minus), operand.span) };
  }
  if (inner) return expr(b, inner);
  return expr(b, node(c, 'primary'));
}

export function buildPrimary(b: ExprBuilder, c: Children): Expr {
  const num = tok(c, 'NumberLit');
  if (num) return { kind: 'number', text: num.image, span: b.spans.token(num) };
  const str = tok(c, 'StringLit');
  if (str) return stringExpr(b, str);
  const t = tok(c, 'TRUE') ?? tok(c, 'FALSE');
  if (t) return { kind: 'boolean', value: t.tokenType.name === 'TRUE', span: b.spans.token(t) };
  const nul = tok(c, 'NULL');
  if (nul) return { kind: 'null', span: b.spans.token(nul) };
  for (const key of ['intervalLit', 'typedLiteral', 'caseExpr', 'castExpr', 'extractExpr', 'parenExpr', 'functionCall', 'columnRef']) {
    const n = node(c, key);
    if (n) return expr(b, n);
  }
  return need<Expr>(undefined);
}

export function stringExpr(b: ExprBuilder, t: IToken): Expr {
  const span = b.spans.token(t);
  const raw = unquoteString(t.image);
  const sub = substituteEnv(raw, span, b.spans.ctx);
  return { kind: 'string', value: sub.text, raw, envVars: sub.envVars, span };
}

export function buildInterval(b: ExprBuilder, n: CstNode): IntervalLit {
  const c = n.children as Children;
  const span = b.spans.node(n);
  const strTok = need(tok(c, 'StringLit'));
  const text = unquoteString(strTok.image);
  const unitNode = node(c, 'unit');
  if (unitNode) {
    const unitTok = need(tok(unitNode.children as Children, 'IdentCat'));
    const unit = keywordTimeUnit(unitTok.image) ?? 'second';
    const ms = intervalMs(text, unit);
    if (ms === null) b.spans.ctx.diagnostics.report('syntax-bad-interval', b.spans.token(strTok), { text: `${text}' ${unitTok.image}` });
    return { kind: 'interval', ms: ms ?? 0, text, unit, span };
  }
  const d = parseDurationText(text);
  if (!d) b.spans.ctx.diagnostics.report('syntax-bad-interval', b.spans.token(strTok), { text });
  return { kind: 'interval', ms: d?.ms ?? 0, text, unit: null, span };
}

export function buildTypedLiteral(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  const word = need(tok(c, 'typeWord'));
  const value = unquoteString(need(tok(c, 'StringLit')).image);
  return { kind: 'typed_literal', type: word.tokenType.name === 'DATE' ? 'date' : 'timestamp', value, span: b.spans.node(n) };
}

export function buildCase(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  const operand = node(c, 'operand');
  const whens = nodes(c, 'whens');
  const thens = nodes(c, 'thens');
  const els = node(c, 'else');
  return {
    kind: 'case',
    operand: operand ? expr(b, operand) : null,
    whens: whens.map((w, i) => ({ when: expr(b, w), then: expr(b, thens[i]) })),
    else: els ? expr(b, els) : null,
    span: b.spans.node(n),
  };
}

export function buildCast(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  const t = buildType(b, need(node(c, 'dataType')));
  return { kind: 'cast', operand: expr(b, node(c, 'expr')), type: t.type, typeSpan: t.span, span: b.spans.node(n) };
}

function timeUnit(b: ExprBuilder, identNode: CstNode | undefined): TimeUnit {
  const t = need(tok(need(identNode).children as Children, 'IdentCat'));
  const u = keywordTimeUnit(t.image);
  if (!u) b.spans.ctx.diagnostics.report('syntax-unknown-time-unit', b.spans.token(t), { unit: t.image });
  return u ?? 'second';
}

export function buildExtract(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  return { kind: 'extract', unit: timeUnit(b, node(c, 'unit')), operand: expr(b, node(c, 'expr')), span: b.spans.node(n) };
}

export function buildColumnRef(b: ExprBuilder, c: Children): Expr {
  const parts = nodes(c, 'parts').map((p) => b.visit(p) as Ident);
  const name = need(parts[parts.length - 1]);
  const qualifier = parts.length > 1 ? parts[0]! : null;
  return { kind: 'column', qualifier, name, span: qualifier ? joinSpans(qualifier.span, name.span) : name.span };
}

/** `name(...)`, including the keyword forms of FLOOR/CEIL, SUBSTRING, TRIM and TIMESTAMPADD. */
export function buildCall(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  const span = b.spans.node(n);
  const name = b.visit(need(node(c, 'name'))) as Ident;
  const fn = name.quoted ? '' : name.name;
  const args = nodes(c, 'args').map((a) => expr(b, a));
  const modifier = tok(c, 'modifier');
  const fromArg = node(c, 'fromArg');
  const toUnit = node(c, 'toUnit');
  const bag = b.spans.ctx.diagnostics;
  const badForm = (form: string, allowed: string): void => {
    bag.report('syntax-bad-call-form', span, { name: name.name.toUpperCase(), form, allowed });
  };
  const side = modifier && modifier.tokenType.name !== 'DISTINCT' ? (modifier.tokenType.name.toLowerCase() as 'both' | 'leading' | 'trailing') : null;
  if (side && fn !== 'trim') badForm(modifier!.image.toUpperCase(), 'TRIM');

  if (toUnit) {
    if (fn === 'floor' || fn === 'ceil') return { kind: 'floor_to', ceil: fn === 'ceil', operand: need(args[0]), unit: timeUnit(b, toUnit), span };
    badForm('x TO unit', 'FLOOR and CEIL');
  }
  if (fn === 'trim' && (fromArg || args.length === 1)) {
    if (c.forArg) badForm('FOR n', 'SUBSTRING');
    if (fromArg) return { kind: 'trim', side: side ?? 'both', chars: args[0] ?? null, operand: expr(b, fromArg), span };
    return { kind: 'trim', side: side ?? 'both', chars: null, operand: args[0]!, span };
  }
  if (fromArg) {
    if (fn === 'substring' && args.length === 1) {
      const forArg = node(c, 'forArg');
      const all = [args[0]!, expr(b, fromArg), ...(forArg ? [expr(b, forArg)] : [])];
      return { kind: 'call', name, args: all, distinct: false, star: false, span };
    }
    badForm('x FROM y', 'SUBSTRING and TRIM');
  }
  if (fn === 'timestampadd' && args.length === 3 && args[0]!.kind === 'column' && args[0]!.qualifier === null) {
    const unitIdent = args[0]!.name;
    const unit = keywordTimeUnit(unitIdent.name);
    if (!unit) bag.report('syntax-unknown-time-unit', unitIdent.span, { unit: unitIdent.name });
    return { kind: 'timestampadd', unit: unit ?? 'second', amount: args[1]!, operand: args[2]!, span };
  }
  return { kind: 'call', name, args, distinct: modifier?.tokenType.name === 'DISTINCT', star: tok(c, 'Star') !== undefined, span };
}
