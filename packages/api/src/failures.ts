/**
 * Every way a request can fail, as an `ApiError`, so that every failure answers the error body
 * `{ error, message, details }` and never an empty or HTML body:
 *
 * - an `ApiError` from a handler or the authentication middleware, as it is;
 * - a request the contract rejects (`HttpApiDecodeError`: path, query or body) → 400
 *   `invalid_request`, the message naming the first field and `details.issues` listing each
 *   `{ path, message }`, the same shape the use cases give their own field errors;
 * - a body that is not JSON or nested too deep → 400 `invalid_request`; larger than the limit →
 *   413 `request_too_large`;
 * - a path (or method) the API does not have → 404 `not_found`;
 * - anything else (a defect, an unexpected error) → 500 `internal_error`, logged with its cause.
 */
import { HttpApiError, HttpServerError } from "@effect/platform"
import { plainIssuesOfDecode } from "@verbatim/contract"
import { Errors } from "@verbatim/domain"
import { Cause, Option } from "effect"

/** The largest request body accepted, in bytes (1 MiB): far above any valid request of the API. */
export const maxBodyBytes = 1024 * 1024

/** A body over `limit` bytes: 413 `request_too_large` naming the limit. */
export const bodyTooLargeFor = (limit: number): Errors.ApiError =>
  Errors.apiError("request_too_large", `The request body is larger than ${limit} bytes`, {
    max_body_bytes: limit
  })

export const bodyTooLarge: Errors.ApiError = bodyTooLargeFor(maxBodyBytes)

/** The deepest nesting of arrays and objects accepted in a request body. */
export const maxJsonDepth = 64

export const bodyTooDeep: Errors.ApiError = Errors.apiError(
  "invalid_request",
  `The request body nests arrays and objects deeper than ${maxJsonDepth} levels`,
  { max_depth: maxJsonDepth }
)

/** How deep a JSON text nests arrays and objects (brackets inside strings do not count). */
export const jsonDepth = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  let escaped = false
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false
      else if (char === "\\") escaped = true
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === "[" || char === "{") deepest = Math.max(deepest, ++depth)
    else if (char === "]" || char === "}") depth--
  }
  return deepest
}

const malformedBody: Errors.ApiError = Errors.apiError(
  "invalid_request",
  "The request body is not valid JSON"
)

/**
 * A rejected path, query or body as `invalid_request`: the domain's `Errors.rejection` of its
 * issues, in plain words (`plainIssuesOfDecode`).
 */
export const fromDecodeError = (error: HttpApiError.HttpApiDecodeError): Errors.ApiError =>
  Errors.rejection(plainIssuesOfDecode(error.issues))

const fromRequestError = (error: HttpServerError.RequestError): Errors.ApiError =>
  error.cause instanceof Error && error.cause.message === "maxBytes exceeded" ? bodyTooLarge : malformedBody

/** What to answer for an error, or `None` when it is unexpected (answered 500 and logged). */
export const known = (error: unknown): Option.Option<Errors.ApiError> => {
  if (error instanceof Errors.ApiError) return Option.some(error)
  if (error instanceof HttpApiError.HttpApiDecodeError) return Option.some(fromDecodeError(error))
  if (error instanceof HttpServerError.RouteNotFound) {
    return Option.some(
      Errors.apiError(
        "not_found",
        `${error.request.method} ${error.request.url} is not an endpoint of this API`
      )
    )
  }
  if (error instanceof HttpServerError.RequestError && error.reason === "Decode") {
    return Option.some(fromRequestError(error))
  }
  return Option.none()
}

/** The error a failed request answers with: its first expected failure, else its first known defect. */
export const answerFor = (cause: Cause.Cause<unknown>): Option.Option<Errors.ApiError> =>
  Option.orElse(Option.flatMap(Cause.failureOption(cause), known), () =>
    Option.flatMap(Cause.dieOption(cause), known)
  )

export const internalError: Errors.ApiError = Errors.apiError("internal_error")
