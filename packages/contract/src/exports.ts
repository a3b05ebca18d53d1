/**
 * The text exports of GET /transcripts/{video_id} (`format=srt|vtt|txt`) as the contract documents
 * them: their content types, listed in the OpenAPI document beside the JSON answer. The server
 * renders them (`@verbatim/api`'s `exports.ts`).
 */
import type { Api } from "@verbatim/domain"

export type TextFormat = Exclude<Api.TranscriptFormat, "json">

export const contentTypes: { readonly [F in TextFormat]: string } = {
  srt: "application/x-subrip; charset=utf-8",
  vtt: "text/vtt; charset=utf-8",
  txt: "text/plain; charset=utf-8"
}

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
