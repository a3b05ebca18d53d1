/**
 * Follow-ups (`makeFollowUps`): work forked beside its caller is let finish when the scope closes,
 * for at most the grace; what still runs after it is interrupted, so a hung follow-up never holds a
 * shutdown.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Ref, Scope, TestClock } from "effect"
import { makeFollowUps } from "../src/usecases/lanes.js"

describe("follow-ups", () => {
  it.effect("closing the scope waits for what runs, then interrupts what outlives the grace", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const followUp = yield* Scope.extend(makeFollowUps("2 seconds"), scope)
      const finished = yield* Ref.make<ReadonlyArray<string>>([])
      const interrupted = yield* Deferred.make<void>()
      const mark = (name: string) => Ref.update(finished, (names) => [...names, name])
      yield* followUp(Effect.delay(mark("quick"), "1 second"))
      // Forked by a follow-up while the scope drains: awaited too.
      yield* followUp(Effect.delay(followUp(Effect.delay(mark("chained"), "500 millis")), "1 second"))
      yield* followUp(Effect.onInterrupt(Effect.never, () => Deferred.succeed(interrupted, undefined)))
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("500 millis")
      expect(yield* Ref.get(finished)).toEqual(["quick", "chained"])
      expect(yield* Deferred.isDone(interrupted)).toBe(false)
      yield* TestClock.adjust("500 millis")
      yield* Fiber.join(closing)
      expect(yield* Deferred.isDone(interrupted)).toBe(true)
    })
  )
})
