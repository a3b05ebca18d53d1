/**
 * The text exports of GET /transcripts/{video_id} (`format=srt|vtt|txt`), rendered with the
 * domain's exporters. Each answers with its own content type, always UTF-8, and a
 * `Content-Disposition` naming a file `<video_id>.<language>.<ext>` (shown inline).
 *
 * txt lists one `[HH:MM:SS] text` line per segment unless `include_timestamps=false`, which gives
 * the paragraphs instead; srt and vtt are timed by nature and ignore `include_timestamps`.
 */
import { HttpServerResponse } from "@effect/platform"
import { contentTypes, type TextFormat } from "@verbatim/contract"
import type { ChosenTranscript } from "@verbatim/core"
import { Transcript } from "@verbatim/domain"

export const render = (format: TextFormat, chosen: ChosenTranscript, includeTimestamps: boolean): string => {
  switch (format) {
    case "srt":
      return Transcript.toSrt(chosen.segments)
    case "vtt":
      return Transcript.toVtt(chosen.segments)
    case "txt":
      return Transcript.toTxt(chosen.segments, { timestamps: includeTimestamps })
  }
}

const fileNamePart = (value: string): string => value.replace(/[^A-Za-z0-9_-]/g, "_")

export const exportResponse = (
  format: TextFormat,
  chosen: ChosenTranscript,
  includeTimestamps: boolean
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(render(format, chosen, includeTimestamps), {
    contentType: contentTypes[format],
    headers: {
      "content-disposition": `inline; filename="${fileNamePart(chosen.response.video_id)}.${fileNamePart(chosen.response.language)}.${format}"`
    }
  })
