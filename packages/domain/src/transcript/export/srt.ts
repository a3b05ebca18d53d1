/**
 * SRT (SubRip) export: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, the text lines, and a
 * blank line between cues; the file ends with one newline (an empty transcript is the empty file).
 * Cues follow `cuesOf`: sorted, non-empty, non-overlapping, end after start, no blank line or `-->`
 * in the text.
 */
import { cuesOf } from "../cue.js"
import type { Segment } from "../segment.js"
import { srtTimecode } from "./timecode.js"

export const toSrt = (segments: ReadonlyArray<Pick<Segment, "start" | "end" | "text">>): string => {
  const blocks = cuesOf(segments).map(
    (cue, i) => `${i + 1}\n${srtTimecode(cue.start)} --> ${srtTimecode(cue.end)}\n${cue.text}`
  )
  return blocks.length === 0 ? "" : `${blocks.join("\n\n")}\n`
}
