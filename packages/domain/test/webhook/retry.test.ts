import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Option, Schema } from "effect"
import { Webhook } from "../../src/index.js"

const hour = 3_600_000
const schedule = Webhook.standardSchedule
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const scheduleArb = fc.record({
  delaysMs: fc.array(fc.integer({ min: 0, max: 10 * hour }), { minLength: 1, maxLength: 12 }),
  jitter: fc.double({ min: 0, max: 1, noNaN: true })
})

describe("Webhook retry schedule", () => {
  it("the standard schedule: at least 6 attempts over about a day, the first immediately", () => {
    expect(Webhook.attempts(schedule)).toBeGreaterThanOrEqual(6)
    expect(Webhook.attempts(schedule)).toBe(8)
    expect(schedule.delaysMs).toEqual([
      0,
      5_000,
      300_000,
      1_800_000,
      2 * hour,
      5 * hour,
      10 * hour,
      10 * hour
    ])
    expect(Webhook.span(schedule)).toBeGreaterThanOrEqual(20 * hour)
    expect(Webhook.span(schedule)).toBeLessThanOrEqual(30 * hour)
    expect(Option.getOrThrow(Webhook.delayBefore(schedule, 1, 0.99))).toBe(0)
    expect(Schema.is(Webhook.RetrySchedule)(schedule)).toBe(true)
  })

  it("an attempt times out after 15 s by default, shorter than every wait from the third attempt on", () => {
    expect(Webhook.defaultTimeoutMs).toBe(15_000)
    expect(schedule.delaysMs.slice(2).every((d) => d > Webhook.defaultTimeoutMs)).toBe(true)
  })

  it("each wait stays in its jitter band, grows with the random number, and is 'nominal' at 0.5", () => {
    fc.assert(
      fc.property(scheduleArb, fc.nat({ max: 13 }), random, random, (s, index, r1, r2) => {
        const sched = { delaysMs: s.delaysMs as [number, ...Array<number>], jitter: s.jitter }
        const attempt = index + 1
        const nominal = sched.delaysMs[index]
        const got = Webhook.delayBefore(sched, attempt, r1)
        if (nominal === undefined) return Option.isNone(got)
        const delay = Option.getOrThrow(got)
        expect(Number.isInteger(delay)).toBe(true)
        expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - sched.jitter)))
        expect(delay).toBeLessThanOrEqual(Math.ceil(nominal * (1 + sched.jitter)))
        const other = Option.getOrThrow(Webhook.delayBefore(sched, attempt, r2))
        if (r1 <= r2) expect(delay).toBeLessThanOrEqual(other)
        expect(Option.getOrThrow(Webhook.delayBefore(sched, attempt, 0.5))).toBe(nominal)
        return true
      })
    )
  })

  it("is deterministic in the random number, and has no attempt 0 or past the last", () => {
    fc.assert(
      fc.property(fc.nat({ max: 7 }), random, (i, r) => {
        expect(Webhook.delayBefore(schedule, i + 1, r)).toEqual(Webhook.delayBefore(schedule, i + 1, r))
      })
    )
    expect(Option.isNone(Webhook.delayBefore(schedule, 0, 0.5))).toBe(true)
    expect(Option.isNone(Webhook.delayBefore(schedule, 9, 0.5))).toBe(true)
    expect(Option.isNone(Webhook.delayBefore(schedule, 1.5, 0.5))).toBe(true)
  })

  it("a schedule in milliseconds replaces the default (settings and tests)", () => {
    expect(Webhook.parseSchedule("0, 10ms, 20, 1s, 2m, 1h")).toEqual(
      Either.right({ delaysMs: [0, 10, 20, 1_000, 120_000, hour], jitter: 0.1 })
    )
    expect(Webhook.parseSchedule("0,5s,5m,30m,2h,5h,10h,10h")).toEqual(Either.right(schedule))
    expect(Webhook.parseSchedule("0,5x")._tag).toBe("Left")
    expect(Webhook.parseSchedule("")._tag).toBe("Left")
    expect(Webhook.parseSchedule("-5")._tag).toBe("Left")
    const decoded = Schema.decodeUnknownEither(Webhook.RetrySchedule)({ delaysMs: [0, 10, 20], jitter: 0 })
    expect(decoded._tag).toBe("Right")
    expect(Schema.decodeUnknownEither(Webhook.RetrySchedule)({ delaysMs: [], jitter: 0 })._tag).toBe("Left")
    expect(Schema.decodeUnknownEither(Webhook.RetrySchedule)({ delaysMs: [1], jitter: 2 })._tag).toBe("Left")
  })
})

describe("Webhook retry policy", () => {
  const status = fc.integer({ min: 100, max: 599 })

  it("2xx is delivered; 408, 429 and 5xx are retried; every other answer (3xx included) is final", () => {
    fc.assert(
      fc.property(status, (s) => {
        const v = Webhook.verdict({ _tag: "Answered", status: s })
        if (s >= 200 && s < 300) return v === "delivered"
        if (s === 408 || s === 429 || s >= 500) return v === "retryable"
        return v === "final"
      })
    )
    expect(Webhook.verdict({ _tag: "Answered", status: 302 })).toBe("final")
    expect(Webhook.verdict({ _tag: "Answered", status: 410 })).toBe("final")
    expect(Webhook.verdict({ _tag: "Answered", status: 503 })).toBe("retryable")
  })

  it("no answer (timeout, network error) is retried; a refused address is not", () => {
    expect(Webhook.verdict({ _tag: "Unreachable" })).toBe("retryable")
    expect(Webhook.verdict({ _tag: "Refused" })).toBe("final")
  })

  it("next: retries with the following wait until the attempts run out", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), random, (attempt, r) => {
        const result = Webhook.next(schedule, attempt, { _tag: "Unreachable" }, r)
        if (attempt === 8) {
          expect(result).toEqual({ _tag: "GiveUp", reason: "attempts_exhausted" })
          return
        }
        expect(result).toEqual({
          _tag: "RetryIn",
          attempt: attempt + 1,
          delayMs: Option.getOrThrow(Webhook.delayBefore(schedule, attempt + 1, r))
        })
      })
    )
  })

  it("next: delivered and final answers end the delivery at any attempt", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), status, random, (attempt, s, r) => {
        const result = Webhook.next(schedule, attempt, { _tag: "Answered", status: s }, r)
        const v = Webhook.verdict({ _tag: "Answered", status: s })
        if (v === "delivered") expect(result).toEqual({ _tag: "Delivered" })
        if (v === "final") expect(result).toEqual({ _tag: "GiveUp", reason: "final_answer" })
        if (v === "retryable") expect(result._tag).toBe(attempt === 8 ? "GiveUp" : "RetryIn")
      })
    )
    expect(Webhook.next(schedule, 1, { _tag: "Refused" }, 0.5)).toEqual({ _tag: "GiveUp", reason: "refused" })
  })

  it("a full run of failures makes exactly the schedule's attempts over about a day", () => {
    fc.assert(
      fc.property(fc.array(random, { minLength: 8, maxLength: 8 }), (rs) => {
        let attempt = 1
        let elapsed = 0
        for (;;) {
          const n = Webhook.next(schedule, attempt, { _tag: "Answered", status: 500 }, rs[attempt - 1] ?? 0.5)
          if (n._tag !== "RetryIn") break
          attempt = n.attempt
          elapsed += n.delayMs
        }
        expect(attempt).toBe(8)
        expect(elapsed).toBeGreaterThanOrEqual(Math.floor(0.9 * Webhook.span(schedule)))
        expect(elapsed).toBeLessThanOrEqual(Math.ceil(1.1 * Webhook.span(schedule)))
      })
    )
  })
})
