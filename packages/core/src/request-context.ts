/**
 * The request a piece of work belongs to, for every entry point (HTTP, the MCP tools over HTTP):
 * its id (`X-Request-Id`, kept from the client when valid, else made here), and what is learnt of it
 * on the way (the account, once authenticated; the cause of a failure answered 5xx), so that the
 * access log line, the error body and the jobs it creates all name the same request.
 *
 * One mutable record per request, held in a `FiberRef` set by the entry point: fibers the request
 * forks see the same record, and a fiber outside any request sees `undefined`.
 */
import { type Cause, Effect, FiberRef } from "effect"

export interface RequestRecord {
  /** The request's id: the client's `X-Request-Id` when valid, else one made for it. */
  readonly id: string
  /** The authenticated account, once known. */
  accountId: string | undefined
  /** Why the request answered 5xx, when a failure was turned into its answer. */
  failure: Cause.Cause<unknown> | undefined
}

/** The request the running fiber works for (none outside requests: workers, sweeps). */
export const currentRequest: FiberRef.FiberRef<RequestRecord | undefined> = FiberRef.unsafeMake<
  RequestRecord | undefined
>(undefined)

/** The longest request id accepted from a client. */
export const maxRequestIdLength = 128

const requestIdPattern = /^[A-Za-z0-9._~:+=/@-]+$/

/**
 * A client's `X-Request-Id` when it can be kept: 1 to 128 characters of letters, digits and
 * `. _ ~ : + = / @ -` (UUIDs, ULIDs, base64, a proxy's ids); anything else (spaces, quotes, control
 * characters that could forge a log line, an overlong value) is replaced by an id of our own.
 */
export const acceptedRequestId = (value: string | undefined): string | undefined =>
  value !== undefined && value.length <= maxRequestIdLength && requestIdPattern.test(value)
    ? value
    : undefined

/** A fresh record for a request that sent `header` as its `X-Request-Id`; `make` makes an id otherwise. */
export const requestRecord = (header: string | undefined, make: () => string): RequestRecord => ({
  id: acceptedRequestId(header) ?? make(),
  accountId: undefined,
  failure: undefined
})

/** The id of the request the running fiber works for, if any. */
export const currentRequestId: Effect.Effect<string | undefined> = Effect.map(
  FiberRef.get(currentRequest),
  (record) => record?.id
)

/** Notes the account of the running request (after authentication). */
export const noteRequestAccount = (accountId: string): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentRequest), (record) => {
    if (record !== undefined) record.accountId = accountId
  })

/** Notes why the running request answers 5xx (the failure turned into its answer). */
export const noteRequestFailure = (failure: Cause.Cause<unknown>): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentRequest), (record) => {
    if (record !== undefined) record.failure = failure
  })

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The running request's id as the API's `request_id` of the work it starts (transcribe, batch,
 * estimate answers; the jobs and batch items it makes, whose worker lines name it): the request's id
 * when it is a UUID (every id the server makes, and a client's that is one), so that the answer, its
 * `X-Request-Id` and the worker's lines agree; `None` otherwise (the caller makes a fresh UUID).
 */
export const requestIdForWork: Effect.Effect<string | undefined> = Effect.map(
  FiberRef.get(currentRequest),
  (record) => (record !== undefined && uuidPattern.test(record.id) ? record.id.toLowerCase() : undefined)
)
