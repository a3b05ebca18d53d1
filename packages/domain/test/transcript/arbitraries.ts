/** Segment generators shared by the transcript tests. */
import { Arbitrary, FastCheck as fc } from "effect"
import { Segment, Word } from "../../src/transcript/segment.js"

/** Text with the characters that matter to the formats: line breaks, tabs, markup, arrows, punctuation. */
export const richText = fc.stringOf(
  fc.constantFrom(
    "a",
    "B",
    "7",
    "é",
    " ",
    " ",
    "\n",
    "\r\n",
    "\t",
    "&",
    "<",
    ">",
    "-",
    "-->",
    ".",
    "?",
    "!",
    ";"
  ),
  { maxLength: 30 }
)

/** Any segments the schema allows (any order, any times, end maybe before start). */
export const anySegments = fc.array(Arbitrary.make(Segment), { maxLength: 25 })

/** Segments in a small time range with rich text: equal starts, overlaps and zero lengths are common. */
export const crowdedSegments = fc.array(
  fc
    .record({
      text: richText,
      start: fc.integer({ min: 0, max: 5000 }),
      end: fc.integer({ min: 0, max: 5000 })
    })
    .map((s) => new Segment(s)),
  { maxLength: 25 }
)

/** Segments with strictly increasing starts and rich text; ends anywhere from the start on. */
export const orderedSegments = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 1, max: 10_000 }),
      length: fc.integer({ min: 0, max: 12_000 }),
      text: richText,
      words: fc.option(fc.array(Arbitrary.make(Word), { maxLength: 3 }), { nil: undefined })
    }),
    { maxLength: 25 }
  )
  .map((parts) => {
    let at = 0
    return parts.map(({ gap, length, text, words }) => {
      at += gap
      return new Segment({ text, start: at, end: at + length, ...(words === undefined ? {} : { words }) })
    })
  })
