/**
 * Error responses. Every error body is `{ error, message, details, request_id }` (no `_tag`;
 * `request_id` is added by the server to every answer it gives, so the schemas decode it as
 * optional and never encode it), and the
 * HTTP status follows the code (`Errors.statusOf`). One schema per status: its wire form is the
 * body with `error` restricted to the codes of that status, its decoded form the domain's
 * `ApiError`, so handlers fail with `ApiError` and the typed client gets `ApiError` back.
 *
 * The schemas document the contract (OpenAPI, typed client); the server (`@verbatim/api`) renders
 * every `ApiError` through its `errorResponse`, whatever the endpoint declared, so no failure can
 * escape as an empty body.
 */
import { HttpApiSchema } from "@effect/platform"
import { Api, Errors } from "@verbatim/domain"
import { ParseResult, Schema } from "effect"

const bodyFor = (codes: ReadonlyArray<Errors.ErrorCode>) =>
  Schema.Struct({
    error: Schema.Literal(...codes),
    message: Schema.String,
    details: Api.FreeFormObject,
    request_id: Schema.optionalWith(
      Schema.String.annotations({
        description:
          "The request's id, also in the X-Request-Id header of every answer: the client's X-Request-Id when it is 1 to 128 characters of letters, digits and . _ ~ : + = / @ -, else one the server made. Quote it when reporting a problem."
      }),
      { exact: true }
    )
  })

/**
 * What handlers fail with: the domain's `ApiError`, named in this package so that the contract's
 * inferred types can be written in declaration files (TypeScript cannot name a class reached only
 * through a namespace re-export such as `Errors.ApiError`).
 */
export interface ApiFailure extends Errors.ApiError {}

/** An error body on the wire. */
export interface ErrorWire {
  readonly error: Errors.ErrorCode
  readonly message: string
  readonly details: { readonly [key: string]: unknown }
  readonly request_id?: string
}

/** The error schema of one HTTP status: `ApiError` on the inside, the error body on the wire. */
export interface ErrorSchema extends Schema.Schema<ApiFailure, ErrorWire> {}

/** The error schema of one HTTP status: `ApiError` on the inside, the error body on the wire. */
export const errorSchemaFor = (status: Errors.ErrorStatus, identifier: string): ErrorSchema => {
  const codes: ReadonlyArray<Errors.ErrorCode> = Errors.codesWithStatus(status)
  return Schema.transformOrFail(bodyFor(codes), Schema.typeSchema(Errors.ApiError), {
    strict: true,
    decode: (body) =>
      ParseResult.succeed(
        new Errors.ApiError({ code: body.error, message: body.message, details: body.details })
      ),
    encode: (error, _, ast) =>
      codes.includes(error.code)
        ? ParseResult.succeed({ error: error.code, message: error.message, details: error.details })
        : ParseResult.fail(new ParseResult.Type(ast, error, `${error.code} is not answered with ${status}`))
  }).annotations(
    HttpApiSchema.annotations({
      status,
      identifier,
      description: `Status ${status}: error is ${codes.join(" or ")}`
    })
  )
}

export const BadRequest = errorSchemaFor(400, "BadRequestError")
export const Unauthorized = errorSchemaFor(401, "UnauthorizedError")
export const PaymentRequired = errorSchemaFor(402, "PaymentRequiredError")
export const Forbidden = errorSchemaFor(403, "ForbiddenError")
export const NotFound = errorSchemaFor(404, "NotFoundError")
export const RequestTimeout = errorSchemaFor(408, "RequestTimeoutError")
export const Conflict = errorSchemaFor(409, "ConflictError")
export const Gone = errorSchemaFor(410, "GoneError")
export const PayloadTooLarge = errorSchemaFor(413, "PayloadTooLargeError")
export const TooManyRequests = errorSchemaFor(429, "TooManyRequestsError")
export const HeaderFieldsTooLarge = errorSchemaFor(431, "HeaderFieldsTooLargeError")
export const InternalError = errorSchemaFor(500, "InternalError")
export const ServiceUnavailable = errorSchemaFor(503, "ServiceUnavailableError")
export const InsufficientStorage = errorSchemaFor(507, "InsufficientStorageError")

/** Every error schema, by status. */
export const errorSchemas = {
  400: BadRequest,
  401: Unauthorized,
  402: PaymentRequired,
  403: Forbidden,
  404: NotFound,
  408: RequestTimeout,
  409: Conflict,
  410: Gone,
  413: PayloadTooLarge,
  429: TooManyRequests,
  431: HeaderFieldsTooLarge,
  500: InternalError,
  503: ServiceUnavailable,
  507: InsufficientStorage
} as const satisfies Record<Errors.ErrorStatus, unknown>
