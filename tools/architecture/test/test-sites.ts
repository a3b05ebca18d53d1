/**
 * Where a test file names its tests, and whether each one runs on any machine. A test file is read
 * with TypeScript's own parser; a test site is a call of `it`, `test`, `describe` or `layer(...)`
 * (with their forms: `it.effect`, `it.each(table)`, `describe.skipIf(cond)`, ...) whose first
 * argument is a literal string.
 *
 * A site's reach is what can keep it from running:
 *
 * - `always`: nothing does.
 * - `ci`: it depends on the machine, but not under `CI=true`, where it runs (and fails when what it
 *   needs is missing): `it.skipIf(!installed && !inCi)`, `describe.runIf(url !== "" || inCi)`.
 * - `environment`: it can be skipped on some machine, CI included: `.skip`, `.todo`, a `.skipIf` or
 *   `.runIf` on it or on a block around it, an `if`, `?:`, `&&` or `||` that registers it, an
 *   `if (cond) return` before it in the function that registers it, a branch
 *   of `Option.match`, a helper that calls its tests' callback only on a condition
 *   (`whenInstalled(() => ...)`), a local function registering it that is called only on a
 *   condition, or a `ctx.skip()` in its body.
 *
 * Conditions are read under `CI=true`: `process.env.CI === "true"` (and constants made of it, in the
 * file or imported from a relative module) is true, everything else unknown. A loop is taken to run
 * its body (the suites' lists of implementations always hold the embedded one).
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import ts from "typescript"

export type Reach = "always" | "ci" | "environment"

export interface TestSite {
  readonly name: string
  /** `block` for `describe` and `layer(...)` blocks, whose reach is the best of their tests'. */
  readonly kind: "test" | "block"
  readonly line: number
  readonly reach: Reach
  /** The first condition that can keep it from running (empty when it always runs). */
  readonly why: string
}

const order: Record<Reach, number> = { environment: 0, ci: 1, always: 2 }

interface Found {
  readonly reach: Reach
  readonly why: string
}

const always: Found = { reach: "always", why: "" }

/** The lesser of two reaches (both must hold). */
const meet = (a: Found, b: Found): Found => (order[b.reach] < order[a.reach] ? b : a)
/** The better of two reaches (either registers the test). */
const join2 = (a: Found, b: Found): Found => (order[b.reach] > order[a.reach] ? b : a)

interface Module {
  readonly path: string
  readonly file: ts.SourceFile
}

const modules = new Map<string, Module | undefined>()

/** A module by its absolute path, parsed once. */
const moduleAt = (path: string, text?: string): Module | undefined => {
  if (text === undefined && modules.has(path)) return modules.get(path)
  const source = text ?? (existsSync(path) ? readFileSync(path, "utf8") : undefined)
  const module =
    source === undefined
      ? undefined
      : { path, file: ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS) }
  if (text === undefined) modules.set(path, module)
  return module
}

const testBases = new Set(["it", "test", "describe", "layer"])

interface Modifier {
  readonly name: string
  readonly argument: ts.Expression | undefined
}

interface TestCallee {
  readonly base: string
  readonly modifiers: ReadonlyArray<Modifier>
}

/** `it.effect.skipIf(cond)` as `it` with `effect`, `skipIf(cond)`; undefined when not a test function. */
const testCalleeOf = (expression: ts.Expression): TestCallee | undefined => {
  const modifiers: Array<Modifier> = []
  let node: ts.Expression = expression
  for (;;) {
    if (ts.isIdentifier(node)) {
      return testBases.has(node.text) ? { base: node.text, modifiers: modifiers.reverse() } : undefined
    }
    if (ts.isPropertyAccessExpression(node)) {
      modifiers.push({ name: node.name.text, argument: undefined })
      node = node.expression
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      modifiers.push({ name: node.expression.name.text, argument: node.arguments[0] })
      node = node.expression.expression
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "layer"
    ) {
      node = node.expression
    } else return undefined
  }
}

/** The literal text of a name argument, or undefined when it is built at run time. */
const literalName = (node: ts.Node | undefined): string | undefined =>
  node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    ? node.text
    : undefined

const isFunction = (
  node: ts.Node
): node is ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration =>
  ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node)

const textOf = (node: ts.Node): string => node.getText().replace(/\s+/g, " ")

/** A top-level declaration of `name` in the module, or the one a relative import names. */
const declarationOf = (
  module: Module,
  name: string,
  depth = 0
): { readonly module: Module; readonly node: ts.Node } | undefined => {
  for (const statement of module.file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name)
      return { module, node: statement }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.name.text === name && declaration.initializer) {
          return { module, node: declaration.initializer }
        }
      }
    }
    if (
      depth < 3 &&
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text.startsWith(".")
    ) {
      const bindings = statement.importClause?.namedBindings
      const imported =
        bindings !== undefined && ts.isNamedImports(bindings)
          ? bindings.elements.find((element) => element.name.text === name)
          : undefined
      if (imported !== undefined) {
        const specifier = statement.moduleSpecifier.text.replace(/\.js$/, ".ts")
        const target = moduleAt(
          join(dirname(module.path), specifier.endsWith(".ts") ? specifier : `${specifier}.ts`)
        )
        return target === undefined
          ? undefined
          : declarationOf(target, (imported.propertyName ?? imported.name).text, depth + 1)
      }
    }
  }
  return undefined
}

const strip = (node: ts.Expression): ts.Expression => {
  let expression = node
  while (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression)) {
    expression = expression.expression
  }
  return expression
}

const isCiVariable = (node: ts.Expression): boolean => {
  const text = textOf(node)
  return text === "process.env.CI" || text === 'process.env["CI"]'
}

/** The value of a condition under `CI=true`: true, false, or undefined when it depends on the machine. */
const underCi = (node: ts.Expression, module: Module, depth = 0): boolean | undefined => {
  const expression = strip(node)
  if (depth > 6) return undefined
  if (ts.isPrefixUnaryExpression(expression) && expression.operator === ts.SyntaxKind.ExclamationToken) {
    const value = underCi(expression.operand, module, depth + 1)
    return value === undefined ? undefined : !value
  }
  if (ts.isBinaryExpression(expression)) {
    const operator = expression.operatorToken.kind
    if (operator === ts.SyntaxKind.AmpersandAmpersandToken || operator === ts.SyntaxKind.BarBarToken) {
      const left = underCi(expression.left, module, depth + 1)
      const right = underCi(expression.right, module, depth + 1)
      const and = operator === ts.SyntaxKind.AmpersandAmpersandToken
      if (left === !and || right === !and) return !and
      return left === and && right === and ? and : undefined
    }
    const equality = [
      ts.SyntaxKind.EqualsEqualsEqualsToken,
      ts.SyntaxKind.EqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsToken
    ].indexOf(operator)
    if (equality >= 0) {
      const [variable, literal] = isCiVariable(expression.left)
        ? [expression.left, expression.right]
        : [expression.right, expression.left]
      if (isCiVariable(variable) && ts.isStringLiteral(literal)) {
        return (literal.text === "true") === equality < 2
      }
      // Under CI=true the variable is set: it is not `undefined`.
      if (isCiVariable(variable) && ts.isIdentifier(literal) && literal.text === "undefined")
        return equality >= 2
    }
    return undefined
  }
  if (isCiVariable(expression)) return true
  if (ts.isIdentifier(expression)) {
    const found = declarationOf(module, expression.text)
    return found !== undefined && ts.isExpression(found.node)
      ? underCi(found.node as ts.Expression, found.module, depth + 1)
      : undefined
  }
  return undefined
}

/** What a condition that must be `holds` for the test to run allows; `why` names its construct. */
const condition = (node: ts.Expression, holds: boolean, module: Module, why: string): Found =>
  underCi(node, module) === holds ? { reach: "ci", why } : { reach: "environment", why }

const skipping = new Set(["skip", "todo"])

/** What a test function's modifiers allow (`.skip`, `.todo`, `.skipIf(c)`, `.runIf(c)`). */
const modifiersAllow = (callee: TestCallee, module: Module): Found =>
  callee.modifiers.reduce<Found>((found, modifier) => {
    if (skipping.has(modifier.name)) return meet(found, { reach: "environment", why: `.${modifier.name}` })
    if (modifier.argument !== undefined && (modifier.name === "skipIf" || modifier.name === "runIf")) {
      const why = `.${modifier.name}(${textOf(modifier.argument)})`
      return meet(found, condition(modifier.argument, modifier.name === "runIf", module, why))
    }
    return found
  }, always)

/** Every node under `root` (itself included) that `keep` accepts. */
const nodesUnder = <A extends ts.Node>(
  root: ts.Node,
  keep: (node: ts.Node) => node is A
): ReadonlyArray<A> => {
  const found: Array<A> = []
  const visit = (node: ts.Node): void => {
    if (keep(node)) found.push(node)
    ts.forEachChild(node, visit)
  }
  visit(root)
  return found
}

const maxDepth = 8

/**
 * What lets `start` run, from its own place up to `stop` (exclusive) or the file's top: the blocks
 * and conditions around it, and for a function around it, how that function is called.
 */
const reachOf = (start: ts.Node, module: Module, depth: number, stop?: ts.Node): Found => {
  if (depth > maxDepth) return always
  const own = ts.isCallExpression(start) ? testCalleeOf(start.expression) : undefined
  let found = own === undefined ? always : modifiersAllow(own, module)
  let child: ts.Node = start
  let parent: ts.Node | undefined = start.parent
  while (parent !== undefined && parent !== stop) {
    const named = isFunction(child) ? namedFunction(child) : undefined
    if (named !== undefined) return meet(found, callSitesAllow(named, module, depth))
    if (ts.isSourceFile(parent)) break
    found = meet(found, stepAllows(parent, child, start, module, depth))
    child = parent
    parent = parent.parent
  }
  return found
}

/** What the construct `parent` asks for its part `child` to run. */
const stepAllows = (
  parent: ts.Node,
  child: ts.Node,
  start: ts.Node,
  module: Module,
  depth: number
): Found => {
  if (ts.isCallExpression(parent) && parent.arguments.some((argument) => argument === child)) {
    const callee = testCalleeOf(parent.expression)
    if (callee !== undefined) return modifiersAllow(callee, module)
    return isFunction(child) || child === start
      ? helperAllows(parent, parent.arguments.indexOf(child as ts.Expression), module, depth)
      : always
  }
  if (ts.isBlock(parent) && ts.isStatement(child)) {
    const returns = earlyReturns(parent, child)
    if (returns.length > 0)
      return returns.map((early) => condition(early.condition, early.holds, module, early.why)).reduce(meet)
  }
  const guard = guardOf(parent, child)
  if (guard !== undefined) {
    const construct = ts.isIfStatement(parent)
      ? "if"
      : ts.isConditionalExpression(parent)
        ? "?:"
        : "&&, || or ??"
    const why = `${guard.holds ? "" : "not "}${textOf(guard.condition)} (${construct})`
    return condition(guard.condition, guard.holds, module, why)
  }
  if (isFunction(child) && ts.isPropertyAssignment(parent) && matchBranch(parent)) {
    return { reach: "environment", why: `${textOf(parent.parent.parent)} (a branch)` }
  }
  return always
}

/** Whether a statement ends its function: `return`, or a block holding one at its top. */
const returnsFrom = (statement: ts.Statement | undefined): boolean =>
  statement !== undefined &&
  (ts.isReturnStatement(statement) ||
    (ts.isBlock(statement) && statement.statements.some(ts.isReturnStatement)))

/**
 * The `if (cond) return` statements before `child` in a block: what follows them runs only when their
 * condition lets the function go on (`describe(..., () => { if (!redis) return; it(...) })`).
 */
const earlyReturns = (
  block: ts.Block,
  child: ts.Statement
): ReadonlyArray<{ readonly condition: ts.Expression; readonly holds: boolean; readonly why: string }> =>
  block.statements
    .slice(0, block.statements.indexOf(child))
    .filter(ts.isIfStatement)
    .flatMap((statement) => [
      ...(returnsFrom(statement.thenStatement)
        ? [
            {
              condition: statement.expression,
              holds: false,
              why: `if (${textOf(statement.expression)}) return`
            }
          ]
        : []),
      ...(returnsFrom(statement.elseStatement)
        ? [
            {
              condition: statement.expression,
              holds: true,
              why: `else return of if (${textOf(statement.expression)})`
            }
          ]
        : [])
    ])

/** The condition an `if`, `?:`, `&&`, `||` or `??` puts on its part `child`, if any. */
const guardOf = (
  parent: ts.Node,
  child: ts.Node
): { readonly condition: ts.Expression; readonly holds: boolean } | undefined => {
  if (ts.isIfStatement(parent) && child !== parent.expression) {
    return { condition: parent.expression, holds: child === parent.thenStatement }
  }
  if (ts.isConditionalExpression(parent) && child !== parent.condition) {
    return { condition: parent.condition, holds: child === parent.whenTrue }
  }
  if (ts.isBinaryExpression(parent) && child === parent.right) {
    const operator = parent.operatorToken.kind
    if (operator === ts.SyntaxKind.AmpersandAmpersandToken) return { condition: parent.left, holds: true }
    if (operator === ts.SyntaxKind.BarBarToken || operator === ts.SyntaxKind.QuestionQuestionToken) {
      return { condition: parent.left, holds: false }
    }
  }
  return undefined
}

/** The name of a function declared as `function name` or `const name = () => ...`. */
const namedFunction = (node: ts.Node): string | undefined => {
  if (ts.isFunctionDeclaration(node)) return node.name?.text
  const declaration = node.parent
  return declaration !== undefined &&
    ts.isVariableDeclaration(declaration) &&
    declaration.initializer === node &&
    ts.isIdentifier(declaration.name)
    ? declaration.name.text
    : undefined
}

/** Whether an object property is a branch of `X.match(value, { onSome, onNone, ... })`. */
const matchBranch = (property: ts.PropertyAssignment): boolean => {
  const call = property.parent.parent
  return (
    call !== undefined &&
    ts.isCallExpression(call) &&
    ts.isPropertyAccessExpression(call.expression) &&
    /^match/.test(call.expression.name.text)
  )
}

/** The best reach among the calls of a function declared in the module (none: never registered). */
const callSitesMemo = new Map<string, Found>()
const callSitesAllow = (name: string, module: Module, depth: number): Found => {
  const key = `${module.path}\0${name}`
  const known = callSitesMemo.get(key)
  if (known !== undefined) return known
  const found = callSitesOnce(name, module, depth)
  callSitesMemo.set(key, found)
  return found
}

const callSitesOnce = (name: string, module: Module, depth: number): Found => {
  const calls = nodesUnder(
    module.file,
    (node): node is ts.CallExpression =>
      ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name
  )
  if (calls.length === 0) return always
  return calls.map((call) => reachOf(call, module, depth + 1)).reduce(join2)
}

/**
 * How a helper (`whenInstalled(() => ...)`, `describeEachDatabase("x", (it) => ...)`) calls the
 * function given as its argument `index`: the best reach among its calls of that parameter, and of
 * the helpers it hands the parameter on to. A helper that is not declared in this file or a relative
 * module (a library's `Effect.gen`, an array's `map`) is taken to call it.
 */
const helperMemo = new Map<ts.Node, Map<number, Found>>()
const helperAllows = (call: ts.CallExpression, index: number, module: Module, depth: number): Found => {
  if (depth > maxDepth || !ts.isIdentifier(call.expression)) return always
  const found = declarationOf(module, call.expression.text)
  if (found === undefined || !isFunction(found.node)) return always
  const byIndex = helperMemo.get(found.node) ?? new Map<number, Found>()
  helperMemo.set(found.node, byIndex)
  const known = byIndex.get(index)
  if (known !== undefined) return known
  const allowed = helperCalls(found.node, found.module, call.expression.text, index, depth)
  byIndex.set(index, allowed)
  return allowed
}

const helperCalls = (
  helper: ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration,
  module: Module,
  name: string,
  index: number,
  depth: number
): Found => {
  const parameter = helper.parameters[index]?.name
  if (parameter === undefined || !ts.isIdentifier(parameter) || helper.body === undefined) return always
  const uses = nodesUnder(
    helper.body,
    (node): node is ts.Identifier => ts.isIdentifier(node) && node.text === parameter.text
  )
  const reaches = uses.map((use) => {
    const invoked = ts.isCallExpression(use.parent) && use.parent.expression === use ? use.parent : use
    return reachOf(invoked, module, depth + 1, helper)
  })
  return reaches.length === 0
    ? { reach: "environment", why: `${name} never calls it` }
    : reaches.reduce(join2)
}

/** A `ctx.skip()` (or a destructured `skip()`) in a test's own function, and what lets it skip. */
const selfSkips = (call: ts.CallExpression, module: Module): Found => {
  const body = call.arguments.find(
    (argument): argument is ts.ArrowFunction | ts.FunctionExpression =>
      ts.isArrowFunction(argument) || ts.isFunctionExpression(argument)
  )
  const context = body?.parameters[0]?.name
  if (body === undefined || context === undefined) return always
  const skips = nodesUnder(body, (node): node is ts.CallExpression => {
    if (!ts.isCallExpression(node)) return false
    const callee = node.expression
    if (ts.isIdentifier(context)) {
      return (
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === "skip" &&
        ts.isIdentifier(callee.expression) &&
        callee.expression.text === context.text
      )
    }
    return ts.isIdentifier(callee) && callee.text === "skip"
  })
  return skips.reduce<Found>((found, skip) => {
    // The skip happens when every condition around it holds: under CI=true, one that is false stops it.
    let stopped = false
    let child: ts.Node = skip
    for (let parent = skip.parent; parent !== body && parent !== undefined; parent = parent.parent) {
      if (ts.isBlock(parent) && ts.isStatement(child)) {
        const returns = earlyReturns(parent, child)
        if (returns.length > 0)
          return returns
            .map((early) => condition(early.condition, early.holds, module, early.why))
            .reduce(meet)
      }
      const guard = guardOf(parent, child)
      if (guard !== undefined && underCi(guard.condition, module) === !guard.holds) stopped = true
      child = parent
    }
    return meet(found, { reach: stopped ? "ci" : "environment", why: textOf(skip) })
  }, always)
}

/** Every test site of a test file (its text given, or read from `path`). */
export const testSitesOf = (path: string, text?: string): ReadonlyArray<TestSite> => {
  const module = moduleAt(path, text)
  if (module === undefined) return []
  const calls = nodesUnder(module.file, (node): node is ts.CallExpression => ts.isCallExpression(node))
  const sites = calls.flatMap((call) => {
    const callee = testCalleeOf(call.expression)
    const name = literalName(call.arguments[0])
    if (callee === undefined || name === undefined) return []
    const block =
      callee.base === "describe" ||
      callee.base === "layer" ||
      callee.modifiers.some((m) => m.name === "layer")
    return [{ call, name, block }]
  })
  const own = new Map(
    sites.map(({ call, block }) => [
      call,
      block ? reachOf(call, module, 0) : meet(reachOf(call, module, 0), selfSkips(call, module))
    ])
  )
  return sites.map(({ call, name, block }) => {
    // A block runs when one of the tests written inside it does.
    const inner = block
      ? sites.filter((site) => !site.block && site.call.pos > call.pos && site.call.end <= call.end)
      : []
    const found =
      inner.length === 0
        ? (own.get(call) ?? always)
        : inner.map((site) => own.get(site.call) ?? always).reduce(join2)
    return {
      name,
      kind: block ? "block" : "test",
      line: module.file.getLineAndCharacterOfPosition(call.getStart()).line + 1,
      reach: found.reach,
      why: found.why
    }
  })
}
