/**
 * Stored transcripts as MCP resources, `transcript://{video_id}/{language}`: the list is the
 * account's transcripts (GET /transcripts, 50 a page, the page number as the cursor), one resource
 * per video and language; a read is the best owned transcript of that video in that language
 * (GET /transcripts/{video_id}?language=), as plain text with a `[HH:MM:SS]` time on every line.
 * Each list and read is one request of the account's rate limit, like the REST call it makes.
 */
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource
} from "@modelcontextprotocol/sdk/types.js"
import { Api, Errors, Language, Plan, Transcript } from "@verbatim/domain"
import { Effect, Option, Schema } from "effect"
import { AccountOperations } from "./operations.js"

export const transcriptUriTemplate = "transcript://{video_id}/{language}"

export const transcriptUri = (videoId: string, language: string): string =>
  `transcript://${encodeURIComponent(videoId)}/${encodeURIComponent(language)}`

const uriPattern = /^transcript:\/\/([^/]+)\/([^/]+)$/

const UriParts = Schema.Struct({ video_id: Api.VideoKey, language: Language.LanguageCode })

/** The video and language a transcript URI names; none for any other URI. */
export const parseTranscriptUri = (
  uri: string
): Option.Option<{ readonly video_id: string; readonly language: Language.LanguageCode }> => {
  const match = uriPattern.exec(uri)
  if (match === null) return Option.none()
  const decoded = Option.liftThrowable(() => ({
    video_id: decodeURIComponent(match[1] ?? ""),
    language: decodeURIComponent(match[2] ?? "")
  }))()
  return Option.flatMap(decoded, Schema.decodeUnknownOption(UriParts))
}

export const resourcesPerPage = 50

export const templates: ListResourceTemplatesResult = {
  resourceTemplates: [
    {
      uriTemplate: transcriptUriTemplate,
      name: "transcript",
      title: "Stored transcript",
      description:
        "A transcript the user owns, by video id and language code, as text with a [HH:MM:SS] time on every line",
      mimeType: "text/plain"
    }
  ]
}

const describe = (item: Api.TranscriptListItem): string =>
  `${item.source_kind} transcript in ${item.language}, ${item.duration_seconds} s, ${item.word_count} words`

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
    const transcript = yield* operations.transcript(parts.video_id, {
      language: parts.language,
      include_timestamps: true,
      format: "json"
    })
    const heading = `${transcript.video_title ?? transcript.video_id} (video ${transcript.video_id}, ${transcript.language}, ${transcript.source_kind})`
    const body =
      transcript.segments.length > 0
        ? Transcript.toTxt(transcript.segments, { timestamps: true })
        : `${transcript.text}\n`
    const result: ReadResourceResult = {
      contents: [{ uri, mimeType: "text/plain", text: `${heading}\n\n${body}` }]
    }
    return result
  })
