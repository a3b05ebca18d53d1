/**
 * `ApiError`, the typed error every use case fails with when the caller must get an error body:
 * a catalogue code, a message and free-form details. It knows its HTTP status and converts to and
 * from the wire body (`ErrorBody`, which has no `_tag`).
 */
import { ParseResult, Schema } from "effect"
import type { ErrorBody } from "../api/error-body.js"
import { FreeFormObject } from "../api/fields.js"
import { ErrorCode, type ErrorStatus, isRetryable, meaningOf, statusOf } from "./codes.js"

export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  code: ErrorCode,
  message: Schema.String,
  details: FreeFormObject
}) {
  get status(): ErrorStatus {
    return statusOf(this.code)
  }

  get retryable(): boolean {
    return isRetryable(this.code)
  }

  /** The body sent to the caller. */
  toBody(): ErrorBody {
    return { error: this.code, message: this.message, details: this.details }
  }

  static fromBody(body: ErrorBody): ApiError {
    return new ApiError({ code: body.error, message: body.message, details: body.details })
  }
}

/** An error with the code's catalogue meaning as its message unless one is given. */
export const apiError = (code: ErrorCode, message?: string, details: FreeFormObject = {}): ApiError =>
  new ApiError({ code, message: message ?? meaningOf(code), details })

/** One problem of a rejected request: where (the path of field names and indexes) and what. */
export interface Issue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

const pathKey = (key: PropertyKey): string | number => (typeof key === "symbol" ? String(key) : key)

/** The issues of a failed decode, one per problem found. */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: issue.path.map(pathKey),
    message: issue.message
  }))

/**
 * A rejected request as `invalid_request`: the message names the first problem and
 * `details.issues` lists every one ({ path, message }).
 */
export const invalidRequest = (error: ParseResult.ParseError): ApiError => {
  const issues = issuesOf(error)
  const first = issues[0]
  const message =
    first === undefined
      ? meaningOf("invalid_request")
      : first.path.length === 0
        ? first.message
        : `${first.path.join(".")}: ${first.message}`
  return new ApiError({ code: "invalid_request", message, details: { issues } })
}
