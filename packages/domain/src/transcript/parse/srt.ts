/**
 * A strict SRT reader. Blocks are separated by one or more blank lines; each block is the cue
 * number (1, 2, 3, ... in order), the timing line `HH:MM:SS,mmm --> HH:MM:SS,mmm` (hours two digits
 * or more, nothing after the end time but spaces) with end after start, and at least one text line.
 * Text is returned as written, lines joined by `\n`. Anything else is a CaptionParseError.
 */
import { Either } from "effect"
import type { Cue } from "../cue.js"
import { CaptionParseError } from "./error.js"
import { isBlank, linesOf, readTimedLines } from "./lines.js"

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
    const body = readTimedLines(lines, i, timing, "srt", "HH:MM:SS,mmm --> HH:MM:SS,mmm")
    if (Either.isLeft(body)) return fail(body.left.index, body.left.reason)
    const { start, end, text } = body.right
    i = body.right.next
    if (text.length === 0) return fail(i, "a cue needs at least one line of text")
    cues.push({ start, end, text: text.join("\n") })
  }
}
