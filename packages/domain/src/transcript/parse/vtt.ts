/**
 * A strict WebVTT reader. The file starts with `WEBVTT` (alone or followed by a space or tab and
 * anything), then header lines up to the first blank line. Blocks are separated by blank lines:
 * NOTE blocks are skipped, STYLE and REGION blocks are skipped before the first cue (an error
 * after it); a cue is an optional identifier line, the timing line `[HH:]MM:SS.mmm -->
 * [HH:]MM:SS.mmm` (cue settings after it are ignored) with end after start, and its text lines,
 * which may be none and may not contain `-->`. Cue text is returned as plain text: markup tags
 * (`<b>`, `<v Speaker>`, `<00:01.000>`) removed, then character references (`&amp;` `&lt;`
 * `&gt;` `&nbsp;` `&lrm;` `&rlm;` and numeric ones) decoded.
 */
import { Either } from "effect"
import type { Cue } from "../cue.js"
import { CaptionParseError } from "./error.js"
import { isBlank, linesOf, readTimedLines } from "./lines.js"

const header = /^WEBVTT(?:[ \t].*)?$/
const timing = /^(\S+?)[ \t]*-->[ \t]*(\S+)(?:[ \t]+.*)?$/

const named: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  nbsp: "\u00a0",
  lrm: "\u200e",
  rlm: "\u200f"
}

const decodeReference = (whole: string, name: string): string => {
  const known = named[name]
  if (known !== undefined) return known
  const code =
    name.startsWith("#x") || name.startsWith("#X")
      ? Number.parseInt(name.slice(2), 16)
      : Number(name.slice(1))
  return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
}

/** WebVTT cue text as plain text: tags removed, character references decoded (in one pass). */
export const vttTextToPlain = (text: string): string =>
  text
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|nbsp|lrm|rlm|#[0-9]+|#[xX][0-9a-fA-F]+);/g, (whole, name: string) =>
      decodeReference(whole, name)
    )

export const parseVtt = (input: string): Either.Either<Array<Cue>, CaptionParseError> => {
  const lines = linesOf(input)
  const fail = (index: number, reason: string) =>
    Either.left(new CaptionParseError({ format: "vtt", line: index + 1, reason }))
  if (!header.test(lines[0] ?? "")) return fail(0, "the file must start with WEBVTT")
  let i = 1
  for (let line = lines[i]; line !== undefined && !isBlank(line); line = lines[++i]) {
    if (line.includes("-->")) return fail(i, "a blank line must follow the header")
  }
  const cues: Array<Cue> = []
  const skipBlock = () => {
    while (i < lines.length && !isBlank(lines[i] ?? "")) i++
  }
  for (;;) {
    while (i < lines.length && isBlank(lines[i] ?? "")) i++
    const first = lines[i]
    if (first === undefined) return Either.right(cues)
    if (/^NOTE(?:[ \t]|$)/.test(first)) {
      skipBlock()
      continue
    }
    if (first === "STYLE" || first === "REGION") {
      if (cues.length > 0) return fail(i, `a ${first} block cannot follow a cue`)
      skipBlock()
      continue
    }
    if (!first.includes("-->")) i++
    const body = readTimedLines(lines, i, timing, "vtt", "[HH:]MM:SS.mmm --> [HH:]MM:SS.mmm")
    if (Either.isLeft(body)) return fail(body.left.index, body.left.reason)
    const { start, end, text } = body.right
    i = body.right.next
    cues.push({ start, end, text: vttTextToPlain(text.join("\n")) })
  }
}
