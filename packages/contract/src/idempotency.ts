/**
 * The `Idempotency-Key` request header of POST /transcribe, POST /batch, POST /playlists/resolve and
 * POST /channels/resolve (core's `Idempotency`), declared as those endpoints' headers: the OpenAPI
 * document lists it as a header parameter and the typed client sends it
 * (`{ payload, headers: { "idempotency-key": key } }`; `headers: {}` without one). Its rules (1 to
 * 255 visible ASCII characters) are core's, which names `Idempotency-Key` when it refuses one.
 */
import { Schema } from "effect"

export const idempotencyDescription =
  "Send an Idempotency-Key header (e.g. a UUID) to make a retry safe: the same key with the same request within 24 hours returns the first answer and charges nothing again; the same key with another request is 409 conflict."

/** The headers of an idempotent endpoint (lower case, as requests carry them). */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.annotations({
      description:
        "Any 1 to 255 visible ASCII characters (a UUID is a good key): a retry with the same key and request within 24 hours returns the first answer and charges nothing again; another request with the key is 409 conflict"
    })
  )
})
export type IdempotencyHeaders = typeof IdempotencyHeaders.Type

/** The headers the typed client sends for an optional key. */
export const idempotencyHeaders = (key: string | undefined): IdempotencyHeaders =>
  key === undefined ? {} : { "idempotency-key": key }
