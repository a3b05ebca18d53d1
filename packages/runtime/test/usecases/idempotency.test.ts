/**
 * Core's `Idempotency` on the production wiring and each database: a first request that never
 * answers because it was interrupted (its client went away, the server shut down) frees its key, so
 * a retry with the same key runs at once instead of waiting for an answer that never comes.
 */
import { expect, layer } from "@effect/vitest"
import { Idempotency } from "@verbatim/core"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { createAccount, suiteOptions, useCasesLayer } from "./support.js"

layer(useCasesLayer(), suiteOptions)("Idempotency on the production wiring", (it) => {
  it.effect("an interrupted first request frees its key: the retry runs and its answer is kept", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency
      const account = yield* createAccount()
      const request = () => ({ video: "abc" })
      const started = yield* Deferred.make<void>()
      const first = yield* idempotency
        .run(
          account,
          "test",
          "key-1",
          request,
          Schema.String,
          Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)
        )
        .pipe(Effect.fork)
      yield* Deferred.await(started)
      yield* Fiber.interrupt(first)

      // On the test clock a retry that waited for the first answer would never end (its polls
      // sleep on a clock nothing moves): the test's time limit would fail it.
      const retry = yield* idempotency.run(
        account,
        "test",
        "key-1",
        request,
        Schema.String,
        Effect.succeed("ran")
      )
      expect(retry).toBe("ran")
      const again = yield* idempotency.run(
        account,
        "test",
        "key-1",
        request,
        Schema.String,
        Effect.succeed("twice")
      )
      expect(again).toBe("ran")
    })
  )
})
