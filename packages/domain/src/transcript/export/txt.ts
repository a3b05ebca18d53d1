/**
 * Plain text export.
 * - Without timestamps: the paragraphs (`paragraphsOf`), one per line, separated by a blank line.
 * - With timestamps: one line per non-empty segment in start order, `[HH:MM:SS] text`, the start's
 *   seconds rounded down and the text on one line.
 * Either ends with one newline; an empty transcript is the empty string.
 */
import { sortByStart } from "../order.js"
import { paragraphsOf } from "../paragraphs.js"
import type { Segment } from "../segment.js"
import { normalizeText } from "../text.js"
import { clockTimecode } from "./timecode.js"

export interface TxtOptions {
  readonly timestamps: boolean
}

export const toTxt = (
  segments: ReadonlyArray<Segment>,
  options: TxtOptions = { timestamps: false }
): string => {
  const lines = options.timestamps
    ? sortByStart(segments).flatMap((segment) => {
        const text = normalizeText(segment.text)
        return text.length === 0 ? [] : [`[${clockTimecode(segment.start)}] ${text}`]
      })
    : paragraphsOf(segments).map((paragraph) => paragraph.text)
  return lines.length === 0 ? "" : `${lines.join(options.timestamps ? "\n" : "\n\n")}\n`
}
