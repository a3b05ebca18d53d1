import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { advanceBatch, BatchMachine, BatchStatus, batchOutcome, summarize } from "../../src/status/batch.js"
import { JobStatus } from "../../src/status/job.js"

const items = fc.array(Arbitrary.make(JobStatus), { maxLength: 40 })
const finished = fc.constantFrom(...BatchMachine.table.final)

describe("batch summary", () => {
  it("counts every item once: total = succeeded + failed + processing", () => {
    fc.assert(
      fc.property(items, (xs) => {
        const s = summarize(xs)
        return (
          s.total === xs.length &&
          s.total === s.succeeded + s.failed + s.processing &&
          s.succeeded === xs.filter((x) => x === "completed").length &&
          s.processing === xs.filter((x) => x === "processing").length
        )
      })
    )
  })

  it("counts requires_asr_confirmation as failed", () => {
    expect(summarize(["requires_asr_confirmation", "completed"])).toEqual({
      total: 2,
      succeeded: 1,
      failed: 1,
      processing: 0
    })
  })
})

describe("batch outcome", () => {
  it("is processing iff some item is processing", () => {
    fc.assert(
      fc.property(items, (xs) => (batchOutcome(summarize(xs)) === "processing") === xs.includes("processing"))
    )
  })

  it("is completed iff every item succeeded", () => {
    fc.assert(
      fc.property(
        items,
        (xs) => (batchOutcome(summarize(xs)) === "completed") === xs.every((x) => x === "completed")
      )
    )
  })

  it("is failed iff no item succeeded and none is running, in a non-empty batch", () => {
    fc.assert(
      fc.property(
        items,
        (xs) =>
          (batchOutcome(summarize(xs)) === "failed") ===
          (xs.length > 0 && xs.every((x) => x === "failed" || x === "requires_asr_confirmation"))
      )
    )
  })

  it("is partial iff all finished, some succeeded and some did not", () => {
    fc.assert(
      fc.property(
        items,
        (xs) =>
          (batchOutcome(summarize(xs)) === "partial") ===
          (!xs.includes("processing") && xs.includes("completed") && xs.some((x) => x !== "completed"))
      )
    )
  })

  it("calls an empty batch completed", () => {
    expect(batchOutcome({ total: 0, succeeded: 0, failed: 0, processing: 0 })).toBe("completed")
  })

  it("follows the spec's example shapes", () => {
    expect(batchOutcome({ total: 3, succeeded: 0, failed: 0, processing: 3 })).toBe("processing")
    expect(batchOutcome({ total: 3, succeeded: 3, failed: 0, processing: 0 })).toBe("completed")
    expect(batchOutcome({ total: 3, succeeded: 2, failed: 1, processing: 0 })).toBe("partial")
    expect(batchOutcome({ total: 3, succeeded: 0, failed: 3, processing: 0 })).toBe("failed")
  })
})

describe("a finished batch never changes", () => {
  it("refuses every move from a finished batch", () => {
    fc.assert(
      fc.property(finished, Arbitrary.make(BatchStatus), (from, to) =>
        Either.isLeft(BatchMachine.move(from, to))
      )
    )
  })

  it("advancing a finished batch keeps it or refuses, never changes it", () => {
    fc.assert(
      fc.property(finished, items, (current, xs) => {
        const result = advanceBatch(current, summarize(xs))
        return Either.isLeft(result) ? result.left.from === current : result.right === current
      })
    )
  })

  it("once finished, a batch keeps its status through any later summaries", () => {
    fc.assert(
      fc.property(fc.array(items, { minLength: 1, maxLength: 10 }), (snapshots) => {
        let current: BatchStatus = "processing"
        let settled: BatchStatus | null = null
        for (const xs of snapshots) {
          current = Either.getOrElse(advanceBatch(current, summarize(xs)), () => current)
          if (settled !== null && current !== settled) return false
          if (BatchMachine.isFinal(current)) settled = current
        }
        return true
      })
    )
  })

  it("a processing batch advances to the outcome of its items", () => {
    fc.assert(
      fc.property(items, (xs) => {
        const result = advanceBatch("processing", summarize(xs))
        return Either.isRight(result) && result.right === batchOutcome(summarize(xs))
      })
    )
  })
})
