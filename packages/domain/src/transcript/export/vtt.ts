/**
 * WebVTT export: the `WEBVTT` header line, then for each cue a blank line, `HH:MM:SS.mmm -->
 * HH:MM:SS.mmm` and its text lines; the file ends with one newline (no cues: just `WEBVTT\n`).
 * Cue text escapes `&`, `<` and `>` as `&amp;`, `&lt;` and `&gt;`, as the WebVTT spec requires.
 * Cues follow `cuesOf`: sorted, non-empty, non-overlapping, end after start.
 */
import { cuesOf } from "../cue.js"
import type { Segment } from "../segment.js"
import { vttTimecode } from "./timecode.js"

/** Escapes cue text for WebVTT: `&`, `<`, `>` become character references. */
export const escapeVttText = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

export const toVtt = (segments: ReadonlyArray<Pick<Segment, "start" | "end" | "text">>): string => {
  const blocks = cuesOf(segments).map(
    (cue) => `${vttTimecode(cue.start)} --> ${vttTimecode(cue.end)}\n${escapeVttText(cue.text)}`
  )
  return ["WEBVTT", ...blocks].join("\n\n").concat("\n")
}
