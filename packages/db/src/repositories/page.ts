/**
 * Counting rows for pages and deletions: the total of a paginated list without counting when the
 * page already tells it, and the `n` of a `SELECT count(*)::int AS n` statement.
 */
import { Effect, type ParseResult, Schema } from "effect"

const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.NonNegativeInt })))

/** The `n` column of a one-row count statement. */
export const countOf = <E, R>(
  rows: Effect.Effect<ReadonlyArray<unknown>, E, R>
): Effect.Effect<number, E | ParseResult.ParseError, R> =>
  Effect.map(Effect.flatMap(rows, decodeCount), (decoded) => decoded[0]?.n ?? 0)

/**
 * The total of a list from its page, or from `count` when the page cannot tell: a page shorter than
 * the limit ends the list, unless it is empty past the start (the list may end before the offset).
 */
export const totalOf = <E, R>(
  offset: number,
  limit: number,
  pageLength: number,
  count: Effect.Effect<number, E, R>
): Effect.Effect<number, E, R> =>
  limit > 0 && (pageLength > 0 ? pageLength < limit : offset === 0)
    ? Effect.succeed(offset + pageLength)
    : count
