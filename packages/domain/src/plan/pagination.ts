/**
 * Pagination of list endpoints: `page` and `limit` in, the spec's Pagination object out.
 * `totalPages = ceil(total / limit)` (0 when nothing matches) and `hasMore` iff `page < totalPages`.
 */
import { Schema } from "effect"

export const Pagination = Schema.Struct({
  page: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  limit: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  total: Schema.NonNegativeInt,
  totalPages: Schema.NonNegativeInt,
  hasMore: Schema.Boolean
}).annotations({ identifier: "Pagination" })
export type Pagination = typeof Pagination.Type

/** The Pagination fields for a page of a result set holding `total` items (inputs already validated). */
export const paginate = (total: number, page: number, limit: number): Pagination => {
  const totalPages = Math.ceil(total / limit)
  return { page, limit, total, totalPages, hasMore: page < totalPages }
}

/** How many items precede the page: what a query skips. */
export const pageOffset = (page: number, limit: number): number => (page - 1) * limit
