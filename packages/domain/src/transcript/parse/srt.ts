/**
 * A strict SRT reader. Blocks are separated by one or more blank lines; each block is the cue
 * number (1, 2, 3, ... in order), the timing line `HH:MM:SS,mmm --> HH:MM:SS,mmm` (hours two digits
 * or more, nothing after the end time but spaces) with end after start, and at least one text line.
 * Text is returned as written, lines joined by `\n`. Anything else is a CaptionParseError.
 */
import { Either, Option } from "effect"
import type { Cue } from "../cue.js"
import { parseTimecode } from "../export/timecode.js"
import { CaptionParseError } from "./error.js"
import { isBlank, linesOf } from "./lines.js"

const timing = /^(\S+)[ \t]+-->[ \t]+(\S+)[ \t]*$/

export const parseSrt = (input: string): Either.Either<Array<Cue>, CaptionParseError> => {
  const lines = linesOf(input)
  const fail = (index: number, reason: string) =>
    Either.left(new CaptionParseError({ format: "srt", line: index + 1, reason }))
  const cues: Array<Cue> = []
  let i = 0
  for (;;) {
    while (i < lines.length && isBlank(lines[i] ?? "")) i++
    const numberLine = lines[i]
    if (numberLine === undefined) return Either.right(cues)
    const expected = cues.length + 1
    if (numberLine.trim() !== String(expected)) return fail(i, `expected the cue number ${expected}`)
    i++
    const timingLine = lines[i]
    const match = timingLine === undefined ? null : timing.exec(timingLine)
    if (match === null) return fail(i, "expected a timing line HH:MM:SS,mmm --> HH:MM:SS,mmm")
    const start = parseTimecode(match[1] ?? "", "srt")
    const end = parseTimecode(match[2] ?? "", "srt")
    if (Option.isNone(start) || Option.isNone(end)) return fail(i, "invalid timecode")
    if (end.value <= start.value) return fail(i, "the cue ends before it starts")
    i++
    const text: Array<string> = []
    for (let line = lines[i]; line !== undefined && !isBlank(line); line = lines[++i]) {
      if (line.includes("-->")) return fail(i, "cue text cannot contain -->")
      text.push(line)
    }
    if (text.length === 0) return fail(i, "a cue needs at least one line of text")
    cues.push({ start: start.value, end: end.value, text: text.join("\n") })
  }
}
