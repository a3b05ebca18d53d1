/**
 * The `test.delay` kind of job: work for tests and benchmarks, so the queue, the worker, leases,
 * charges and webhooks are exercised with work whose length and outcome a test chooses. Its payload
 * says how long to work, what to charge on completion, and optionally to fail, or to ask for retries
 * a number of times first. Only the test wiring (`testing.ts`: `testWorkerOn`, the fault tests'
 * worker) runs this lane; a production process neither consumes it nor reports it.
 */
import type { JobHandler, JobRecord } from "@verbatim/core"
import { Duration, Effect, Option, Schema } from "effect"

export const TestWorkPayload = Schema.Struct({
  delay_ms: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  credits: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  /** Fail with this error instead of completing. */
  fail: Schema.optional(Schema.String),
  /** Ask for a retry until the job has been claimed this many times. */
  retry_until_attempt: Schema.optional(Schema.Int)
})
export type TestWorkPayload = typeof TestWorkPayload.Type

export const testWorkHandler: JobHandler = (job: JobRecord) =>
  Effect.gen(function* () {
    const decoded = Schema.decodeUnknownOption(TestWorkPayload)(job.payload ?? {})
    if (Option.isNone(decoded)) return { _tag: "Failed", error: "the test job's payload is invalid" } as const
    const payload = decoded.value
    yield* Effect.sleep(Duration.millis(payload.delay_ms))
    if (payload.retry_until_attempt !== undefined && job.attempts < payload.retry_until_attempt) {
      return { _tag: "Retry", afterMs: 0, error: `attempt ${job.attempts} asked to retry` } as const
    }
    if (payload.fail !== undefined) return { _tag: "Failed", error: payload.fail } as const
    return {
      _tag: "Completed",
      transcript: null,
      price: payload.credits,
      reason: `test work of job ${job.id}`
    } as const
  })
