import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { type FetchWindowDecision, recordFetch } from "../../src/plan/batch-fetches.js"

const day = 86_400_000
/** Gaps between fetches in ms: mostly polling every few seconds, sometimes hours apart. */
const gaps = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 30_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 * 3_600_000 }) }
  ),
  { minLength: 40, maxLength: 250 }
)

const run = (gs: ReadonlyArray<number>) => {
  let fetches: ReadonlyArray<number> = []
  let now = 1_700_000_000_000
  const events: Array<{ at: number; decision: FetchWindowDecision; before: ReadonlyArray<number> }> = []
  for (const g of gs) {
    now += g
    const decision = recordFetch(fetches, now)
    events.push({ at: now, decision, before: fetches })
    fetches = decision.fetches
  }
  return events
}

describe("finished batch fetch window laws", () => {
  it("serves at most 60 fetches in any 24 hours", () => {
    fc.assert(
      fc.property(gaps, (gs) => {
        const served = run(gs)
          .filter((e) => e.decision.allowed)
          .map((e) => e.at)
        return served.every((t) => served.filter((u) => u <= t && t - u < day).length <= 60)
      })
    )
  })

  it("serves a fetch whenever fewer than 60 were served in the last 24 hours", () => {
    fc.assert(
      fc.property(gaps, (gs) => {
        const events = run(gs)
        return events.every((e, i) => {
          const recent = events.slice(0, i).filter((x) => x.decision.allowed && e.at - x.at < day).length
          return e.decision.allowed === recent < 60
        })
      })
    )
  })

  it("a refused fetch names a positive wait after which a fetch is served", () => {
    fc.assert(
      fc.property(gaps, (gs) =>
        run(gs).every(({ at, decision }) =>
          decision.allowed
            ? decision.retryAfterSeconds === 0
            : decision.retryAfterSeconds > 0 &&
              recordFetch(decision.fetches, at + decision.retryAfterSeconds * 1000).allowed &&
              (decision.retryAfterSeconds === 1 ||
                !recordFetch(decision.fetches, at + (decision.retryAfterSeconds - 1) * 1000).allowed)
        )
      )
    )
  })
})

describe("finished batch fetch window examples", () => {
  it("the 61st fetch within 24 hours is refused until the first leaves the window", () => {
    const events = run([0, ...Array.from({ length: 60 }, () => 1000)])
    expect(events.slice(0, 60).every((e) => e.decision.allowed)).toBe(true)
    expect(events[59]?.decision.remaining).toBe(0)
    const refused = events[60]
    expect(refused?.decision.allowed).toBe(false)
    // first fetch at t0, the 61st at t0 + 60 s: wait until t0 + 24 h
    expect(refused?.decision.retryAfterSeconds).toBe(86_400 - 60)
    const t0 = events[0]?.at ?? 0
    expect(recordFetch(refused?.decision.fetches ?? [], t0 + day - 1).allowed).toBe(false)
    expect(recordFetch(refused?.decision.fetches ?? [], t0 + day).allowed).toBe(true)
  })
})
