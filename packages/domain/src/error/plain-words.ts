/**
 * Plain words for a rejected value: one `Issue` per problem, each saying what the field must be,
 * with its limit and the value received ("must be at most 100 (got 500)"), never the schema
 * library's wording ("Expected …, actual …", "Unable to decode …", "Struct (Encoded side)"). It
 * walks the decode's issue tree and reads the limits from the schemas' own annotations (the JSON
 * Schema annotation every built-in filter carries: minimum, maximum, maxLength, pattern, …).
 */
import { SchemaAST as AST, Option, type ParseResult } from "effect"

/** One problem of a rejected request: where (the path of field names and indexes) and what. */
export interface PlainIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

const maxShown = 60

/** A value as the caller sent it, short. */
export const shown = (value: unknown): string => {
  if (value === undefined) return "nothing"
  if (Array.isArray(value)) return "a list"
  if (typeof value === "object" && value !== null) return "an object"
  const text = typeof value === "string" ? JSON.stringify(value) : String(value)
  return text.length <= maxShown ? text : `${text.slice(0, maxShown - 1)}…`
}

const got = (actual: unknown): string => ` (got ${shown(actual)})`

type JsonSchemaLimits = {
  readonly type?: unknown
  readonly minimum?: unknown
  readonly maximum?: unknown
  readonly exclusiveMinimum?: unknown
  readonly exclusiveMaximum?: unknown
  readonly minLength?: unknown
  readonly maxLength?: unknown
  readonly minItems?: unknown
  readonly maxItems?: unknown
  readonly pattern?: unknown
  readonly multipleOf?: unknown
}

const limitsOf = (ast: AST.AST): JsonSchemaLimits =>
  Option.getOrElse(AST.getJSONSchemaAnnotation(ast), () => ({})) as JsonSchemaLimits

const isNumber = (value: unknown): value is number => typeof value === "number"

const dateLike = /date|time/i

/** What a value of `ast` is, as a noun phrase ("a string", "one of "a", "b"", "an ISO 8601 date-time"). */
export const describe = (ast: AST.AST): string => {
  const identifier = Option.getOrUndefined(AST.getIdentifierAnnotation(ast))
  if (identifier !== undefined && dateLike.test(identifier) && !/duration/i.test(identifier)) {
    return "an ISO 8601 date-time"
  }
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "true or false"
    case "BigIntKeyword":
      return "an integer"
    case "UndefinedKeyword":
    case "VoidKeyword":
      return "left out"
    case "Literal":
      return ast.literal === null ? "null" : JSON.stringify(ast.literal)
    case "Enums":
      return `one of ${ast.enums.map(([, value]) => JSON.stringify(value)).join(", ")}`
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "a list"
    case "Union": {
      const literals = ast.types.filter(AST.isLiteral)
      if (literals.length === ast.types.length) {
        return literals.length === 1
          ? describe(literals[0] as AST.AST)
          : `one of ${literals.map((literal) => JSON.stringify(literal.literal)).join(", ")}`
      }
      return [...new Set(ast.types.map(describe))].join(" or ")
    }
    case "Refinement":
      return refinementPhrase(ast, undefined) ?? describe(ast.from)
    case "Transformation":
      return describe(ast.to)
    case "Suspend":
      return describe(ast.f())
    case "Declaration": {
      const title = Option.getOrUndefined(AST.getTitleAnnotation(ast)) ?? identifier
      return title === undefined ? "a valid value" : `a valid ${title}`
    }
    default:
      return "a valid value"
  }
}

/** What a refinement requires of `actual`, from its limits, or `undefined` when it names none. */
const refinementPhrase = (ast: AST.Refinement, actual: unknown): string | undefined => {
  const limits = limitsOf(ast)
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = limits
  if (isNumber(minimum) && isNumber(maximum)) {
    if (isNumber(actual) && actual > maximum) return `must be at most ${maximum}`
    if (isNumber(actual) && actual < minimum) return `must be at least ${minimum}`
    return `must be between ${minimum} and ${maximum}`
  }
  if (isNumber(maximum)) return `must be at most ${maximum}`
  if (isNumber(minimum)) return `must be at least ${minimum}`
  if (isNumber(exclusiveMaximum)) return `must be less than ${exclusiveMaximum}`
  if (isNumber(exclusiveMinimum)) return `must be greater than ${exclusiveMinimum}`
  if (limits.type === "integer") return "must be a whole number"
  if (isNumber(limits.multipleOf)) return `must be a multiple of ${limits.multipleOf}`
  const { minLength, maxLength, minItems, maxItems } = limits
  if (isNumber(minLength) && isNumber(maxLength)) {
    return minLength === maxLength
      ? `must be exactly ${minLength} characters long`
      : `must be ${minLength} to ${maxLength} characters long`
  }
  if (isNumber(maxLength)) return `must be at most ${maxLength} characters long`
  if (isNumber(minLength))
    return minLength === 1 ? "must not be empty" : `must be at least ${minLength} characters long`
  if (isNumber(minItems) && isNumber(maxItems)) return `must list ${minItems} to ${maxItems} items`
  if (isNumber(maxItems)) return `must list at most ${maxItems} items`
  if (isNumber(minItems))
    return minItems === 1 ? "must list at least one item" : `must list at least ${minItems} items`
  const description = Option.getOrUndefined(AST.getDescriptionAnnotation(ast))
  if (typeof limits.pattern === "string") {
    return description === undefined
      ? "is not in the expected format"
      : `must be a valid value (${description})`
  }
  return undefined
}

const libraryWording = /^(Expected |Unable to decode|Invalid )|Encoded side|Type side/

const isAbsent = (ast: AST.AST): boolean =>
  AST.isUndefinedKeyword(ast) || (AST.isLiteral(ast) && ast.literal === null)

/** The plain issues of a failed decode, one per problem, each with its path. */
export const plainIssuesOf = (issue: ParseResult.ParseIssue): ReadonlyArray<PlainIssue> =>
  walk(issue, [], undefined)

/** The nearest description a caller gave a refinement chain, for filters that name no limit. */
type Context = string | undefined

const walk = (
  issue: ParseResult.ParseIssue,
  path: ReadonlyArray<string | number>,
  description: Context
): ReadonlyArray<PlainIssue> => {
  const say = (message: string): ReadonlyArray<PlainIssue> => [{ path, message }]
  switch (issue._tag) {
    case "Pointer": {
      const keys = (Array.isArray(issue.path) ? issue.path : [issue.path]) as ReadonlyArray<PropertyKey>
      return walk(
        issue.issue,
        path.concat(keys.map((key) => (typeof key === "symbol" ? String(key) : key))),
        undefined
      )
    }
    case "Missing":
      return say("is required")
    case "Unexpected":
      return say("is not a field of this request")
    case "Forbidden":
      return say("could not be checked")
    case "Composite": {
      const issues: ReadonlyArray<ParseResult.ParseIssue> =
        "_tag" in issue.issues ? [issue.issues] : issue.issues
      if (AST.isUnion(issue.ast)) {
        const present = issues.filter(
          (member) => !(member._tag === "Type" && isAbsent(member.ast) && member.actual !== null)
        )
        if (present.length === 1 && present[0] !== undefined) return walk(present[0], path, description)
        return say(`must be ${describe(issue.ast)}${got(issue.actual)}`)
      }
      return issues.flatMap((inner) => walk(inner, path, description))
    }
    case "Refinement": {
      const own = Option.getOrUndefined(AST.getDescriptionAnnotation(issue.ast)) ?? description
      if (issue.kind === "From") return walk(issue.issue, path, own)
      const inner = issue.issue
      // A filter that names its own fields (`{ path, message }`, or several): their issues, where they point.
      if (inner._tag === "Pointer" || inner._tag === "Composite") return walk(inner, path, own)
      if (inner._tag === "Type" && inner.message !== undefined && !libraryWording.test(inner.message)) {
        return say(inner.message)
      }
      const phrase = refinementPhrase(issue.ast, issue.actual)
      if (phrase !== undefined) return say(`${phrase}${got(issue.actual)}`)
      return own === undefined
        ? say(`is not a valid value${got(issue.actual)}`)
        : say(`must be a valid value (${own})${got(issue.actual)}`)
    }
    case "Transformation":
      if (issue.kind === "Transformation" && issue.issue._tag === "Type") {
        const inner = issue.issue
        if (inner.message !== undefined && !libraryWording.test(inner.message)) return say(inner.message)
        return say(`must be ${describe(issue.ast)}${got(issue.actual)}`)
      }
      return walk(issue.issue, path, description)
    case "Type": {
      if (issue.message !== undefined && !libraryWording.test(issue.message)) return say(issue.message)
      if (AST.isRefinement(issue.ast)) {
        const phrase = refinementPhrase(issue.ast, issue.actual)
        if (phrase !== undefined) return say(`${phrase}${got(issue.actual)}`)
      }
      return say(`must be ${describe(issue.ast)}${got(issue.actual)}`)
    }
  }
}

/** The name a message gives a path: `asr_options.speakersExpected`, `items.2.video`, or "the request". */
export const fieldName = (path: ReadonlyArray<string | number>): string =>
  path.length === 0 ? "the request" : path.join(".")

const verbFirst = /^(must|is|has|could|should|cannot|can|may|needs)\b/

/** One issue as a sentence naming its field: "limit must be at most 100 (got 500)". */
export const sentence = (issue: PlainIssue): string =>
  verbFirst.test(issue.message)
    ? `${fieldName(issue.path)} ${issue.message}`
    : issue.path.length === 0
      ? issue.message
      : `${fieldName(issue.path)}: ${issue.message}`
