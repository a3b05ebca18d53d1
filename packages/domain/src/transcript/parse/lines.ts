/** Splitting a caption file into lines: a leading byte order mark dropped, CRLF, CR and LF all end a line. */
import { Either, Option } from "effect"
import { parseTimecode } from "../export/timecode.js"

export const linesOf = (input: string): ReadonlyArray<string> =>
  input.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)

/** A line with nothing but spaces and tabs separates blocks. */
export const isBlank = (line: string): boolean => /^[ \t]*$/.test(line)

/** A cue's timing line and text lines, read from `index` on; `next` is the line after the text. */
export interface TimedLines {
  readonly start: number
  readonly end: number
  readonly text: ReadonlyArray<string>
  readonly next: number
}

/** Where a cue went wrong: the 0-based line index and why. */
export interface LineProblem {
  readonly index: number
  readonly reason: string
}

/**
 * Reads the timing line at `index` (the two times captured by `timing`, end after start) and the
 * text lines up to the next blank line, none of which may contain `-->`.
 */
export const readTimedLines = (
  lines: ReadonlyArray<string>,
  index: number,
  timing: RegExp,
  format: "srt" | "vtt",
  shape: string
): Either.Either<TimedLines, LineProblem> => {
  const problem = (at: number, reason: string) => Either.left({ index: at, reason })
  const timingLine = lines[index]
  const match = timingLine === undefined ? null : timing.exec(timingLine)
  if (match === null) return problem(index, `expected a timing line ${shape}`)
  const start = parseTimecode(match[1] ?? "", format)
  const end = parseTimecode(match[2] ?? "", format)
  if (Option.isNone(start) || Option.isNone(end)) return problem(index, "invalid timecode")
  if (end.value <= start.value) return problem(index, "the cue ends before it starts")
  const text: Array<string> = []
  let i = index + 1
  for (let line = lines[i]; line !== undefined && !isBlank(line); line = lines[++i]) {
    if (line.includes("-->")) return problem(i, "cue text cannot contain -->")
    text.push(line)
  }
  return Either.right({ start: start.value, end: end.value, text, next: i })
}
