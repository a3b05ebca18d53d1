/**
 * Without an OTLP endpoint no span is made: Effect's tracer is off (a `withSpan` gets Effect's no-op
 * span, never sampled, instead of one from the tracer) and the HTTP server skips its span for every
 * request; with an endpoint set, spans are exported (`server-tracing.test.ts`).
 */
import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberRef } from "effect"
import { tracingOff } from "../src/tracing.js"

const request = HttpServerRequest.fromWeb(new Request("http://verbatim.test/api/v2/credits"))

/** Whether the span inside a `withSpan` is sampled, and whether the HTTP server would skip its span. */
const traced = Effect.gen(function* () {
  const span = yield* Effect.currentSpan.pipe(Effect.withSpan("verbatim.test"))
  const skipHttp = yield* FiberRef.get(HttpMiddleware.currentTracerDisabledWhen)
  return { sampled: span.sampled, spanId: span.spanId, skipHttp: skipHttp(request) }
})

describe("tracing off", () => {
  it.scoped("makes no span, and skips the HTTP server's span", () =>
    Effect.gen(function* () {
      expect(yield* traced.pipe(Effect.provide(tracingOff))).toEqual({
        sampled: false,
        spanId: "noop",
        skipHttp: true
      })
    })
  )

  it.scoped("spans are made when tracing is on", () =>
    Effect.gen(function* () {
      expect(yield* traced).toMatchObject({ sampled: true, skipHttp: false })
      expect((yield* traced).spanId).not.toBe("noop")
    })
  )
})
