/**
 * Plain words on HttpApi's rejections. HttpApi turns a rejected path, query, body or header into
 * an `HttpApiDecodeError` of Effect's own wording ("Expected …, actual …") and drops the decode's
 * issue tree. `plainWords` annotates a request schema so that Effect's formatter hands the whole
 * tree to the domain's formatter (`Errors.plainIssuesOf`) and carries its issues, encoded, as the
 * one issue of the error; `plainIssuesOfDecode` reads them back where the error is answered.
 */
import { Errors } from "@verbatim/domain"
import { Option, type ParseResult, Schema, SchemaAST } from "effect"

const marker = "verbatim-plain-issues:"

/** The request schema, whose rejections carry the domain's plain issues. */
export const plainWords = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, I, R> =>
  isStruct(schema)
    ? // Still a Struct, so its constructor (`make`, defaults applied) stays for the typed client.
      schema.annotations({ message })
    : Schema.make<A, I, R>(withMessage(schema.ast))

const isStruct = <A, I, R>(
  schema: Schema.Schema<A, I, R>
): schema is Schema.Schema<A, I, R> & Schema.Struct<Schema.Struct.Fields> =>
  "fields" in schema &&
  "make" in schema &&
  // Not a class (a transformation to its declaration): its annotations would lose its identifier.
  (SchemaAST.isTypeLiteral(schema.ast) ||
    (SchemaAST.isTransformation(schema.ast) && SchemaAST.isTypeLiteral(schema.ast.to)))

const message = (issue: ParseResult.ParseIssue) => ({
  message: `${marker}${JSON.stringify(Errors.plainIssuesOf(issue))}`,
  override: true
})

/**
 * The node with the message annotation and every annotation it had (`SchemaAST.annotations` drops
 * a class's identifier, which would inline its component in the OpenAPI document).
 */
const withMessage = (ast: SchemaAST.AST): SchemaAST.AST => {
  const annotations = { ...ast.annotations, [SchemaAST.MessageAnnotationId]: message }
  switch (ast._tag) {
    case "Transformation":
      return new SchemaAST.Transformation(ast.from, ast.to, ast.transformation, annotations)
    case "TypeLiteral":
      return new SchemaAST.TypeLiteral(ast.propertySignatures, ast.indexSignatures, annotations)
    default:
      return SchemaAST.annotations(ast, annotations)
  }
}

const expected = /^Expected (.*), actual (.*)$/s
const unableToDecode = /^Unable to decode (.*) into an? (.*)$/s

const primitives: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  "Struct (Encoded side)": "an object",
  "Struct (Type side)": "an object"
}

/** An issue Effect worded itself (a schema `plainWords` did not annotate), reworded as best it can be. */
const reworded = (message: string): string => {
  const typed = expected.exec(message)
  if (typed !== null) return `must be ${primitives[typed[1] ?? ""] ?? typed[1]} (got ${typed[2]})`
  const undecoded = unableToDecode.exec(message)
  if (undecoded !== null) {
    const what = /date|time/i.test(undecoded[2] ?? "") ? "an ISO 8601 date-time" : `a valid ${undecoded[2]}`
    return `must be ${what} (got ${undecoded[1]})`
  }
  return message === "is missing" ? "is required" : message
}

const decodeCarried = Schema.decodeUnknownOption(
  Schema.parseJson(
    Schema.Array(
      Schema.Struct({
        path: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
        message: Schema.String
      })
    )
  )
)

/** The plain issues of HttpApi's rejection. */
export const plainIssuesOfDecode = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): ReadonlyArray<Errors.Issue> =>
  issues.flatMap((issue) => {
    if (issue.message.startsWith(marker)) {
      const plain = Option.getOrElse(decodeCarried(issue.message.slice(marker.length)), () => [])
      const prefix = issue.path.map((key) => (typeof key === "symbol" ? String(key) : key))
      return plain.map((inner) => ({ path: [...prefix, ...inner.path], message: inner.message }))
    }
    return [
      {
        path: issue.path.map((key) => (typeof key === "symbol" ? String(key) : key)),
        message: reworded(issue.message)
      }
    ]
  })
