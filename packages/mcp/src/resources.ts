/**
 * Stored transcripts as MCP resources, `transcript://{video_id}/{language}`: the list is the
 * account's transcripts (GET /transcripts, 50 a page, the page number as the cursor), one resource
 * per video and language; a read is the best owned transcript of that video in that language
 * (GET /transcripts/{video_id}?language=), as plain text with a `[HH:MM:SS]` time on every line,
 * in chunks as get_transcript reads it (core's rule at `resourceChunk` characters): a read that
 * does not reach the end says so last and names the URI of the next chunk (`?cursor=`, the
 * cursor get_transcript takes too), so no read overflows a model's context.
 * Each list and read is one request of the account's rate limit, like the REST call it makes.
 */
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource
} from "@modelcontextprotocol/sdk/types.js"
import { TranscriptChunks } from "@verbatim/core"
import { Api, Errors, Language, Plan, Transcript } from "@verbatim/domain"
import { Effect, Option, Schema } from "effect"
import { AccountOperations } from "./operations.js"
import { provenance } from "./provenance.js"

export const transcriptUriTemplate = "transcript://{video_id}/{language}"

export const transcriptUri = (videoId: string, language: string): string =>
  `transcript://${encodeURIComponent(videoId)}/${encodeURIComponent(language)}`

const uriPattern = /^transcript:\/\/([^/?]+)\/([^/?]+)(?:\?cursor=([A-Za-z0-9_-]{1,512}))?$/

/** Characters of a resource read, counted as get_transcript counts them. */
export const resourceChunk = 40_000

const UriParts = Schema.Struct({ video_id: Api.VideoKey, language: Language.LanguageCode })

/** The video and language a transcript URI names; none for any other URI. */
export const parseTranscriptUri = (
  uri: string
): Option.Option<{
  readonly video_id: string
  readonly language: Language.LanguageCode
  readonly cursor?: string | undefined
}> => {
  const match = uriPattern.exec(uri)
  if (match === null) return Option.none()
  const decoded = Option.liftThrowable(() => ({
    video_id: decodeURIComponent(match[1] ?? ""),
    language: decodeURIComponent(match[2] ?? "")
  }))()
  const cursor = match[3]
  return Option.map(Option.flatMap(decoded, Schema.decodeUnknownOption(UriParts)), (parts) =>
    cursor === undefined ? parts : { ...parts, cursor }
  )
}

export const resourcesPerPage = 50

export const templates: ListResourceTemplatesResult = {
  resourceTemplates: [
    {
      uriTemplate: transcriptUriTemplate,
      name: "transcript",
      title: "Stored transcript",
      description:
        "A transcript the user owns, by video id and language code, as text with a [HH:MM:SS] time on every line; a long one in chunks, each naming the URI of the next",
      mimeType: "text/plain"
    }
  ]
}

const describe = (item: Api.TranscriptListItem): string =>
  `${item.translated_from === null ? `${item.source_kind} transcript in ${item.language}` : `machine translation of ${item.translated_from} into ${item.language} (${item.source_kind})`}, ${item.duration_seconds} s, ${item.word_count} words`

/** A page of the account's transcripts as resources; the cursor is the page number. */
export const listResources = (cursor: string | undefined) =>
  Effect.gen(function* () {
    const operations = yield* AccountOperations
    const page = cursor === undefined ? 1 : Number(cursor)
    // Bounded as the `page` of every list is: a huge cursor is refused, not an overflowing offset.
    if (!Plan.withinBounds(Plan.page, page)) {
      return yield* Errors.rejection([{ path: ["cursor"], message: "not a cursor resources/list returned" }])
    }
    const list = yield* operations.transcripts({
      page,
      limit: resourcesPerPage,
      status: "succeeded",
      include_segments: false
    })
    const seen = new Set<string>()
    const resources: Array<Resource> = []
    for (const item of list.history) {
      const uri = transcriptUri(item.video_id, item.language)
      if (seen.has(uri)) continue
      seen.add(uri)
      resources.push({
        uri,
        name: `${item.video_id}/${item.language}`,
        title: item.video_title ?? `Video ${item.video_id} (${item.language})`,
        description: describe(item),
        mimeType: "text/plain"
      })
    }
    const result: ListResourcesResult = list.pagination.hasMore
      ? { resources, nextCursor: String(page + 1) }
      : { resources }
    return result
  })

/** The text of the transcript a URI names. */
export const readResource = (uri: string) =>
  Effect.gen(function* () {
    const operations = yield* AccountOperations
    const parts = yield* Option.match(parseTranscriptUri(uri), {
      onNone: () =>
        Effect.fail(
          Errors.apiError("not_found", `${uri} is not a transcript resource (${transcriptUriTemplate})`, {
            uri
          })
        ),
      onSome: Effect.succeed
    })
    const cursor = yield* TranscriptChunks.requestedCursor(parts.cursor)
    const transcript = yield* operations.transcript(parts.video_id, {
      language: parts.language,
      include_timestamps: true,
      format: "json",
      ...(Option.isSome(cursor) ? { id: cursor.value.transcript } : {})
    })
    const from = Option.match(cursor, {
      onNone: () => TranscriptChunks.start,
      onSome: (value) => value.position
    })
    if (Option.isSome(cursor) && !TranscriptChunks.within(transcript.segments, from)) {
      return yield* TranscriptChunks.cursorError("points past the end of the transcript")
    }
    const chunk = TranscriptChunks.chunkAt(
      transcript.segments,
      from,
      resourceChunk,
      TranscriptChunks.jsonRule
    )
    const heading = `${transcript.video_title ?? transcript.video_id} (video ${transcript.video_id}, ${provenance(transcript)})`
    const body =
      transcript.segments.length > 0
        ? Transcript.toTxt(
            chunk.pieces.map((piece) => ({ start: piece.start, end: piece.end, text: piece.text })),
            { timestamps: true }
          )
        : `${transcript.text}\n`
    const footer = Option.match(chunk.next, {
      onNone: () => "",
      onSome: (position) => {
        const next = TranscriptChunks.encodeCursor({ transcript: transcript.id, position })
        return `\n(continues: read ${transcriptUri(transcript.video_id, transcript.language)}?cursor=${next}, or call get_transcript with video_id "${transcript.video_id}" and cursor "${next}")\n`
      }
    })
    const result: ReadResourceResult = {
      contents: [{ uri, mimeType: "text/plain", text: `${heading}\n\n${body}${footer}` }]
    }
    return result
  })
