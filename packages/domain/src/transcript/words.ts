/** Word-level timestamps of a transcript: the words of its segments, flattened in start order. */
import { sortByStart } from "./order.js"
import type { Segment, Word } from "./segment.js"

/** Every word of the segments, segment by segment in start order (empty when none carries words). */
export const wordsOf = (segments: ReadonlyArray<Segment>): ReadonlyArray<Word> =>
  sortByStart(segments).flatMap((segment) => segment.words ?? [])

/** Whether any segment carries word timestamps. */
export const hasWords = (segments: ReadonlyArray<Segment>): boolean =>
  segments.some((segment) => segment.words !== undefined && segment.words.length > 0)
