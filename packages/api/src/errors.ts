/**
 * How the server answers an `ApiError`, whatever the endpoint declared (the contract's error schemas,
 * `@verbatim/contract`, document the same bodies): its catalogue status, its body, and `Retry-After`
 * when the error says how long to wait.
 */
import { HttpServerResponse } from "@effect/platform"
import type { Errors } from "@verbatim/domain"

/** The seconds an error asks the caller to wait (`details.retry_after_seconds`), if it does. */
export const retryAfterOf = (error: Errors.ApiError): number | undefined => {
  const seconds = error.details.retry_after_seconds
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0
    ? Math.ceil(seconds)
    : undefined
}

/**
 * The response for an `ApiError`: its catalogue status and its body, and `Retry-After` when the
 * error says how long to wait (503 `service_unavailable`; 429 gets it from the rate limit too).
 */
export const errorResponse = (error: Errors.ApiError): HttpServerResponse.HttpServerResponse => {
  const retryAfter = error.status >= 500 || error.status === 429 ? retryAfterOf(error) : undefined
  return HttpServerResponse.unsafeJson(error.toBody(), {
    status: error.status,
    ...(retryAfter === undefined ? {} : { headers: { "retry-after": String(retryAfter) } })
  })
}
