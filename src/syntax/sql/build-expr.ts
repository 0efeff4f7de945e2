// CST expression rules → ast.Expr. The grammar encodes precedence by rule nesting (OR < AND <
// NOT < predicates < + - || < * / % < unary); here each level folds its operands left to right.
import type { CstNode, IToken } from 'chevrotain';
import type { BinaryOp, Expr, IntervalLit, TimeUnit } from '../ast.ts';
import { joinSpans } from '../../diagnostics/span.ts';
import { warnEnvInLiteral } from '../env-subst.ts';
import { buildType } from './build-type.ts';
import { type Children, type SpanMaker, identFromToken, need, node, nodes, tok, toks, unquoteString } from './cst.ts';
import { intervalMs, keywordTimeUnit, parseDurationText } from './time-units.ts';

export interface ExprBuilder {
  spans: SpanMaker;
  visit(n: CstNode): any;
}

const expr = (b: ExprBuilder, n: CstNode | undefined): Expr => b.visit(need(n)) as Expr;

/** One operand of the flat chain, before precedence is applied. */
export interface Unit {
  prefixes: IToken[];
  atom: Expr;
  suffixes: CstNode[];
}

// Precedence levels (higher binds tighter); predicates (IS NULL, IN, BETWEEN, LIKE) sit at PRED.
const PRED = 4;
const NOT_LEVEL = 3;
const NEG_LEVEL = 7;

const BINARY: Record<string, { op: BinaryOp; level: number }> = {
  OR: { op: 'or', level: 1 },
  AND: { op: 'and', level: 2 },
  Eq: { op: '=', level: PRED },
  DoubleEq: { op: '=', level: PRED },
  NotEq: { op: '<>', level: PRED },
  LtEq: { op: '<=', level: PRED },
  GtEq: { op: '>=', level: PRED },
  Lt: { op: '<', level: PRED },
  Gt: { op: '>', level: PRED },
  Plus: { op: '+', level: 5 },
  Minus: { op: '-', level: 5 },
  Concat: { op: '||', level: 5 },
  Star: { op: '*', level: 6 },
  Slash: { op: '/', level: 6 },
  PercentSign: { op: '%', level: 6 },
};

type StackOp = { prefix: IToken; level: number } | { binary: BinaryOp; level: number };

/**
 * Operator precedence over `unit (op unit)*` (shunting-yard). Prefix NOT and '-' wait on the
 * stack like operators of their level, so `NOT a = b` is NOT (a = b) and `-a * b` is (-a) * b;
 * a suffix predicate first reduces everything tighter than itself: `a + 1 IS NULL`.
 */
export function applyPrecedence(b: ExprBuilder, units: Unit[], ops: IToken[]): Expr {
  const out: Expr[] = [];
  const stack: StackOp[] = [];
  const reduce = (): void => {
    const top = stack.pop()!;
    const right = need(out.pop());
    if ('prefix' in top) {
      const span = joinSpans(b.spans.token(top.prefix), right.span);
      out.push({ kind: 'unary', op: top.prefix.tokenType.name === 'NOT' ? 'not' : '-', operand: right, span });
    } else {
      const left = need(out.pop());
      out.push({ kind: 'binary', op: top.binary, left, right, span: joinSpans(left.span, right.span) });
    }
  };
  const reduceWhile = (level: number): void => {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) reduce();
  };
  units.forEach((u, i) => {
    if (i > 0) {
      const opTok = need(ops[i - 1]);
      const bin = need(BINARY[opTok.tokenType.name]);
      if (opTok.tokenType.name === 'DoubleEq') b.spans.ctx.diagnostics.report('syntax-double-equals', b.spans.token(opTok), {});
      reduceWhile(bin.level);
      stack.push({ binary: bin.op, level: bin.level });
    }
    for (const p of u.prefixes) {
      // A leading '+' changes nothing.
      if (p.tokenType.name !== 'Plus') stack.push({ prefix: p, level: p.tokenType.name === 'NOT' ? NOT_LEVEL : NEG_LEVEL });
    }
    out.push(u.atom);
    for (const s of u.suffixes) {
      reduceWhile(PRED);
      out.push(buildSuffix(b, s, need(out.pop())));
    }
  });
  while (stack.length > 0) reduce();
  return need(out[0]);
}

export function buildChain(b: ExprBuilder, c: Children): Expr {
  return applyPrecedence(b, nodes(c, 'units').map((u) => b.visit(u) as Unit), toks(c, 'ops'));
}

export function buildUnit(b: ExprBuilder, c: Children): Unit {
  return { prefixes: toks(c, 'prefixes'), atom: expr(b, node(c, 'atom')), suffixes: nodes(c, 'suffixes') };
}

function buildSuffix(b: ExprBuilder, n: CstNode, operand: Expr): Expr {
  const c = n.children as Children;
  const span = joinSpans(operand.span, b.spans.node(n));
  const negated = tok(c, 'negated') !== undefined;
  if (c.IS) return { kind: 'is_null', operand, negated, span };
  if (c.IN) return { kind: 'in', operand, list: nodes(c, 'inList').map((x) => expr(b, x)), negated, span };
  if (c.BETWEEN) return { kind: 'between', operand, low: expr(b, node(c, 'low')), high: expr(b, node(c, 'high')), negated, span };
  return { kind: 'like', operand, pattern: expr(b, node(c, 'pattern')), negated, span };
}

/** The suffix rule is applied by applyPrecedence, which knows its operand. */
export function buildSuffixAlone(): never {
  return need<never>(undefined);
}

export function buildAtom(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  const num = tok(c, 'NumberLit');
  if (num) return { kind: 'number', text: num.image, span: b.spans.token(num) };
  const str = tok(c, 'StringLit');
  if (str) return stringExpr(b, str);
  const t = tok(c, 'TRUE') ?? tok(c, 'FALSE');
  if (t) return { kind: 'boolean', value: t.tokenType.name === 'TRUE', span: b.spans.token(t) };
  const nul = tok(c, 'NULL');
  if (nul) return { kind: 'null', span: b.spans.token(nul) };
  const typeWord = tok(c, 'typeWord');
  if (typeWord) {
    const value = unquoteString(need(tok(c, 'typedValue')).image);
    return { kind: 'typed_literal', type: typeWord.tokenType.name === 'DATE' ? 'date' : 'timestamp', value, span: b.spans.node(n) };
  }
  const paren = node(c, 'paren');
  if (paren) return expr(b, paren);
  const names = toks(c, 'names');
  if (names.length > 0) {
    if (c.callOpen) return buildCall(b, n, names);
    const name = identFromToken(names[names.length - 1]!, b.spans);
    const qualifier = names.length > 1 ? identFromToken(names[0]!, b.spans) : null;
    return { kind: 'column', qualifier, name, span: qualifier ? joinSpans(qualifier.span, name.span) : name.span };
  }
  for (const key of ['intervalLit', 'caseExpr', 'castExpr', 'extractExpr']) {
    const sub = node(c, key);
    if (sub) return expr(b, sub);
  }
  return need<Expr>(undefined);
}

export function stringExpr(b: ExprBuilder, t: IToken): Expr {
  const span = b.spans.token(t);
  const raw = unquoteString(t.image);
  warnEnvInLiteral(raw, span, b.spans.ctx);
  return { kind: 'string', value: raw, raw, span };
}

export function buildInterval(b: ExprBuilder, n: CstNode): IntervalLit {
  const c = n.children as Children;
  const span = b.spans.node(n);
  const strTok = need(tok(c, 'StringLit'));
  const text = unquoteString(strTok.image);
  const unitTok = tok(c, 'unit');
  if (unitTok) {
    const unit = keywordTimeUnit(unitTok.image) ?? 'second';
    const ms = intervalMs(text, unit);
    if (ms === null) b.spans.ctx.diagnostics.report('syntax-bad-interval', b.spans.token(strTok), { text: `${text}' ${unitTok.image}` });
    return { kind: 'interval', ms: ms ?? 0, text, unit, span };
  }
  const d = parseDurationText(text);
  if (!d) b.spans.ctx.diagnostics.report('syntax-bad-interval', b.spans.token(strTok), { text });
  return { kind: 'interval', ms: d?.ms ?? 0, text, unit: null, span };
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

function timeUnit(b: ExprBuilder, t: IToken): TimeUnit {
  const u = keywordTimeUnit(t.image);
  if (!u) b.spans.ctx.diagnostics.report('syntax-unknown-time-unit', b.spans.token(t), { unit: t.image });
  return u ?? 'second';
}

export function buildExtract(b: ExprBuilder, n: CstNode): Expr {
  const c = n.children as Children;
  return { kind: 'extract', unit: timeUnit(b, need(tok(c, 'unit'))), operand: expr(b, node(c, 'expr')), span: b.spans.node(n) };
}

/** `name(...)`, including the keyword forms of FLOOR/CEIL, SUBSTRING, TRIM and TIMESTAMPADD. */
function buildCall(b: ExprBuilder, n: CstNode, names: IToken[]): Expr {
  const span = b.spans.node(n);
  const argsNode = node(n.children as Children, 'callArgs');
  const c = (argsNode?.children ?? {}) as Children;
  const name = identFromToken(names[names.length - 1]!, b.spans);
  if (names.length > 1) b.spans.ctx.diagnostics.report('syntax-qualified-function', span, { name: names.map((t) => t.image).join('.') });
  const fn = name.quoted ? '' : name.name;
  const args = nodes(c, 'args').map((a) => expr(b, a));
  const modifier = tok(c, 'modifier');
  const fromArg = node(c, 'fromArg');
  const toUnit = tok(c, 'toUnit');
  const bag = b.spans.ctx.diagnostics;
  const badForm = (form: string, allowed: string): void => {
    bag.report('syntax-bad-call-form', span, { name: name.name.toUpperCase(), form, allowed });
  };
  const side = modifier && modifier.tokenType.name !== 'DISTINCT' ? (modifier.tokenType.name.toLowerCase() as 'both' | 'leading' | 'trailing') : null;
  const plainCall = (): Expr => ({ kind: 'call', name, args, distinct: modifier?.tokenType.name === 'DISTINCT', star: tok(c, 'Star') !== undefined, span });
  if (side && fn !== 'trim') {
    badForm(modifier!.image.toUpperCase(), 'TRIM');
    return plainCall();
  }

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
  return plainCall();
}

