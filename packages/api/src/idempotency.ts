/**
 * The `Idempotency-Key` request header of POST /transcribe and POST /batch (core's `Idempotency`).
 * Read from the request rather than declared as the endpoint's headers, so the typed client's
 * calls stay as they were; the OpenAPI document describes it on both operations.
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

export const idempotencyDescription =
  "Send an Idempotency-Key header (e.g. a UUID) to make a retry safe: the same key with the same request within 24 hours returns the first answer and charges nothing again; the same key with another request is 409 conflict."

/** The request's `Idempotency-Key`, when sent. */
export const idempotencyKey: Effect.Effect<string | undefined, never, HttpServerRequest.HttpServerRequest> =
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.headers["idempotency-key"])
