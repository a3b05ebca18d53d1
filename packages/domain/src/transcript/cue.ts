/**
 * Cues: the timed units of SRT and WebVTT, and how a transcript's segments become valid cues.
 *
 * - Segments are sorted by start; a segment whose text is empty (after trimming) is dropped.
 * - Cue text keeps the caption's line breaks; each line has its whitespace collapsed and trimmed,
 *   and empty lines are removed (neither format allows a blank line inside a cue). Any `-->` (any
 *   run of dashes before `>`) becomes `->`, since neither format allows it in cue text.
 * - Segments that start at the same millisecond become one cue, their texts on separate lines (two
 *   cues with one start cannot both have end > start without overlapping).
 * - A cue whose end is not after its start (zero-length, or end before start) lasts `minCueMs`.
 * - A cue's end is cut to the next cue's start, so cues never overlap and end > start always.
 */
import { Schema } from "effect"
import { sortByStart } from "./order.js"
import { Millis, type Segment } from "./segment.js"
import { normalizeText } from "./text.js"

export const Cue = Schema.Struct({
  start: Millis,
  end: Millis,
  text: Schema.String
}).annotations({ identifier: "Cue", description: "A timed caption: start and end in ms, text lines" })
export type Cue = typeof Cue.Type

/** The duration (ms) given to a zero-length cue, unless the next cue starts sooner. */
export const minCueMs = 1000

/** A segment's text as cue text: lines kept, each normalized, empty lines dropped, no `-->`. */
export const cueText = (text: string): string =>
  text
    .split(/\r\n|\r|\n/)
    .map(normalizeText)
    .filter((line) => line.length > 0)
    .join("\n")
    .replace(/--+>/g, "->")

/** The cues of a transcript, sorted, non-empty, non-overlapping, each with end > start. */
export const cuesOf = (segments: ReadonlyArray<Pick<Segment, "start" | "end" | "text">>): Array<Cue> => {
  const merged: Array<{ start: number; end: number; text: string }> = []
  for (const segment of sortByStart(segments)) {
    const text = cueText(segment.text)
    if (text.length === 0) continue
    const last = merged[merged.length - 1]
    if (last !== undefined && last.start === segment.start) {
      last.text = `${last.text}\n${text}`
      last.end = Math.max(last.end, segment.end)
    } else {
      merged.push({ start: segment.start, end: segment.end, text })
    }
  }
  return merged.map((cue, i) => {
    const wanted = cue.end > cue.start ? cue.end : cue.start + minCueMs
    const next = merged[i + 1]
    return {
      start: cue.start,
      end: next === undefined ? wanted : Math.min(wanted, next.start),
      text: cue.text
    }
  })
}
