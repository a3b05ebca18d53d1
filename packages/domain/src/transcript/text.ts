/**
 * The full text of a transcript. Every run of whitespace, caption line breaks included, becomes a
 * single space; segments whose text is empty (or only whitespace) contribute nothing, so no double
 * space appears where they were. Segments are taken in start order.
 */
import { sortByStart } from "./order.js"
import type { Segment } from "./segment.js"

/** The text on one line: whitespace runs (line breaks included) collapsed to one space, trimmed. */
export const normalizeText = (text: string): string => text.replace(/\s+/g, " ").trim()

/** The transcript's text: the segments' normalized texts, in start order, joined by single spaces. */
export const textOf = (segments: ReadonlyArray<Pick<Segment, "start" | "text">>): string =>
  sortByStart(segments)
    .map((segment) => normalizeText(segment.text))
    .filter((text) => text.length > 0)
    .join(" ")

/** How many words a text has: its runs of non-whitespace (0 for an empty or blank text). */
export const countWords = (text: string): number => {
  const trimmed = text.trim()
  return trimmed.length === 0 ? 0 : trimmed.split(/\s+/).length
}
