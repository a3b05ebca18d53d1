import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Schema } from "effect"
import { Pagination, pageOffset, paginate } from "../../src/plan/pagination.js"

const total = fc.nat({ max: 1_000_000 })
const page = fc.integer({ min: 1, max: 20_000 })
const limit = fc.integer({ min: 1, max: 100 })

describe("pagination laws", () => {
  it("totalPages = ceil(total / limit), and hasMore iff page < totalPages", () => {
    fc.assert(
      fc.property(total, page, limit, (t, p, l) => {
        const r = paginate(t, p, l)
        return (
          Schema.is(Pagination)(r) &&
          r.totalPages * l >= t &&
          (r.totalPages - 1) * l < Math.max(t, 1) &&
          r.hasMore === p < r.totalPages &&
          r.page === p &&
          r.limit === l &&
          r.total === t
        )
      })
    )
  })

  it("the pages cover every item once", () => {
    fc.assert(
      fc.property(fc.nat({ max: 2000 }), limit, (t, l) => {
        const { totalPages } = paginate(t, 1, l)
        let seen = 0
        for (let p = 1; p <= totalPages; p++) {
          expect(pageOffset(p, l)).toBe(seen)
          seen += Math.min(l, t - pageOffset(p, l))
        }
        return seen === t
      })
    )
  })
})

describe("pagination examples", () => {
  it("nothing matches: no pages", () => {
    expect(paginate(0, 1, 50)).toEqual({ page: 1, limit: 50, total: 0, totalPages: 0, hasMore: false })
  })

  it("101 items by 50", () => {
    expect(paginate(101, 1, 50)).toEqual({ page: 1, limit: 50, total: 101, totalPages: 3, hasMore: true })
    expect(paginate(101, 3, 50).hasMore).toBe(false)
    expect(paginate(100, 2, 50).hasMore).toBe(false)
    expect(pageOffset(3, 50)).toBe(100)
  })
})
