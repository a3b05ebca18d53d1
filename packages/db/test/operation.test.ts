/**
 * `retryingConflicts` outside a transaction: a statement PostgreSQL rolled back for a deadlock runs
 * again, up to four more times on the schedule; any other failure, and a success, run once. And
 * `spanned`: a repository operation's span is made while the tracer is on, not while it is off.
 * The schedule's delays are Effect's `Clock`, so these run on the test clock: what counts is how
 * many runs happen, not how long they wait.
 */

import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, TestClock, Tracer } from "effect"
import { retryingConflicts, spanned } from "../src/repositories/failure.js"

const deadlock = () =>
  new SqlError({ cause: Object.assign(new Error("deadlock detected"), { code: "40P01" }) })

/** An effect that fails with `failures` in turn, then succeeds; and how many times it ran. */
const scripted = (failures: ReadonlyArray<unknown>) => {
  let runs = 0
  const effect = Effect.suspend(() => {
    const failure = failures[runs]
    runs += 1
    return failure === undefined ? Effect.succeed("done") : Effect.fail(failure)
  })
  return { effect, runs: () => runs }
}

/**
 * `retryingConflicts` of `effect` on the test clock: 10 s is far past the schedule's four delays
 * (10, 20, 40 and 80 ms, jittered up to 1.2x), so every run it would make has been made.
 */
const retried = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(Effect.exit(retryingConflicts(effect)))
    yield* TestClock.adjust(Duration.seconds(10))
    return yield* Fiber.join(fiber)
  })

describe("retryingConflicts", () => {
  it.effect("runs a success once", () =>
    Effect.gen(function* () {
      const { effect, runs } = scripted([])
      expect(yield* retried(effect)).toEqual(Exit.succeed("done"))
      expect(runs()).toBe(1)
    })
  )

  it.effect("runs a deadlocked statement again until it succeeds", () =>
    Effect.gen(function* () {
      const { effect, runs } = scripted([deadlock(), deadlock()])
      expect(yield* retried(effect)).toEqual(Exit.succeed("done"))
      expect(runs()).toBe(3)
    })
  )

  it.effect("gives up after four more runs, with the last conflict", () =>
    Effect.gen(function* () {
      const last = deadlock()
      const { effect, runs } = scripted([deadlock(), deadlock(), deadlock(), deadlock(), last, deadlock()])
      const exit = yield* retried(effect)
      expect(exit).toEqual(Exit.fail(last))
      expect(runs()).toBe(5)
    })
  )

  it.effect("does not run again for another failure, even after a conflict", () =>
    Effect.gen(function* () {
      const other = new Error("syntax error")
      const { effect, runs } = scripted([deadlock(), other])
      const exit = yield* retried(effect)
      expect(exit).toEqual(Exit.fail(other))
      expect(runs()).toBe(2)
      const once = scripted([other])
      expect(yield* retried(once.effect)).toEqual(Exit.fail(other))
      expect(once.runs()).toBe(1)
    })
  )
})

describe("spanned", () => {
  const recording = () => {
    const names: Array<string> = []
    const layer = Layer.unwrapEffect(
      Effect.map(Effect.tracer, (native) =>
        Layer.setTracer(
          Tracer.make({
            span: (name, ...rest) => {
              names.push(name)
              return native.span(name, ...rest)
            },
            context: native.context
          })
        )
      )
    )
    return { names, layer }
  }

  it.effect("makes the operation's span while the tracer is on, with the operation inside it", () =>
    Effect.gen(function* () {
      const { names, layer } = recording()
      const span = yield* Effect.currentSpan.pipe(spanned("verbatim.db.Test"), Effect.provide(layer))
      expect(names).toEqual(["verbatim.db.Test"])
      expect(span.name).toBe("verbatim.db.Test")
    })
  )

  it.effect("makes none while it is off", () =>
    Effect.gen(function* () {
      const { names, layer } = recording()
      const result = yield* Effect.succeed("done").pipe(
        spanned("verbatim.db.Test"),
        Effect.withTracerEnabled(false),
        Effect.provide(layer)
      )
      expect(result).toBe("done")
      expect(names).toEqual([])
    })
  )
})
