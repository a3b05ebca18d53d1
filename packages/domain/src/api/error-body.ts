/**
 * The error body of every endpoint: `{ error, message, details }`. `error` is a code of the
 * catalogue, `message` a human-readable text, and `details` a free-form object, always present
 * (`{}` when there is nothing to add).
 */
import { Schema } from "effect"
import { ErrorCode } from "../error/codes.js"
import { FreeFormObject } from "./fields.js"

export const ErrorBody = Schema.Struct({
  error: ErrorCode,
  message: Schema.String,
  details: FreeFormObject
}).annotations({
  identifier: "ErrorBody",
  description: "An error: its code, a message and free-form details"
})
export type ErrorBody = typeof ErrorBody.Type

/** The error body of one code, for an API that declares each error with its own status. */
export const errorBodyFor = <C extends ErrorCode>(code: C) =>
  Schema.Struct({
    error: Schema.Literal(code),
    message: Schema.String,
    details: FreeFormObject
  }).annotations({ identifier: `ErrorBody_${code}`, description: `The error body of ${code}` })
