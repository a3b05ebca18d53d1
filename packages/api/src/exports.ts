/**
 * The text exports of GET /transcripts/{video_id} (`format=srt|vtt|txt`), rendered with the
 * domain's exporters. Each answers with its own content type, always UTF-8, and a
 * `Content-Disposition` naming a file `<video_id>.<language>.<ext>` (shown inline).
 *
 * txt lists one `[HH:MM:SS] text` line per segment unless `include_timestamps=false`, which gives
 * the paragraphs instead; srt and vtt are timed by nature and ignore `include_timestamps`.
 */
import { HttpServerResponse } from "@effect/platform"
import type { ChosenTranscript } from "@verbatim/core"
import { type Api, Transcript } from "@verbatim/domain"

export type TextFormat = Exclude<Api.TranscriptFormat, "json">

export const contentTypes: { readonly [F in TextFormat]: string } = {
  srt: "application/x-subrip; charset=utf-8",
  vtt: "text/vtt; charset=utf-8",
  txt: "text/plain; charset=utf-8"
}

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

/** The OpenAPI operation of GET /transcripts/{video_id}, with the text exports beside the JSON answer. */
export const documentExports = (operation: Record<string, unknown>): Record<string, unknown> => {
  const responses = operation.responses
  if (typeof responses !== "object" || responses === null) return operation
  const ok: unknown = Reflect.get(responses, "200")
  if (typeof ok !== "object" || ok === null) return operation
  const content: unknown = Reflect.get(ok, "content")
  const text = Object.fromEntries(
    Object.entries(contentTypes).map(([format, type]) => [
      type.split(";")[0] ?? type,
      { schema: { type: "string", description: `The transcript as ${format} (format=${format})` } }
    ])
  )
  return {
    ...operation,
    responses: {
      ...responses,
      200: {
        ...ok,
        content: { ...(typeof content === "object" && content !== null ? content : {}), ...text }
      }
    }
  }
}
