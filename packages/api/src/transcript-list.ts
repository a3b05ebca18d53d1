/**
 * The answer of GET /transcripts, encoded by hand instead of through its schema.
 *
 * Every field of a list item encodes to itself but `created_at` (a `DateTime.Utc`, encoded as its
 * ISO text) and `segments` (`Segment`s, which serialise as their schema encodes them: see
 * `answers.ts`); the pagination is numbers and a boolean. Walking a page of 50 items through the
 * schema cost 8 times what this costs (0.47 ms against 0.06 ms a page, on the shared machine). The list was built by the use case from rows a schema decoded; the test of this module
 * pins that the JSON is the schema's, byte for byte, whatever the list holds.
 */
import { HttpServerResponse } from "@effect/platform"
import type { Api } from "@verbatim/domain"
import { DateTime, Effect } from "effect"

const itemJson = (item: Api.TranscriptListItem): typeof Api.TranscriptListItem.Encoded => ({
  id: item.id,
  video_id: item.video_id,
  video_title: item.video_title,
  language: item.language,
  source_kind: item.source_kind,
  translated_from: item.translated_from,
  status: item.status,
  created_at: DateTime.formatIso(item.created_at),
  word_count: item.word_count,
  segment_count: item.segment_count,
  duration_seconds: item.duration_seconds,
  credits_used: item.credits_used,
  ...(item.segments === undefined ? {} : { segments: item.segments })
})

/** The JSON object of a page of transcripts, as its schema encodes it. */
export const transcriptListJson = (list: Api.TranscriptList): typeof Api.TranscriptList.Encoded => ({
  history: list.history.map(itemJson),
  count: list.count,
  pagination: {
    page: list.pagination.page,
    limit: list.pagination.limit,
    total: list.pagination.total,
    totalPages: list.pagination.totalPages,
    hasMore: list.pagination.hasMore
  }
})

/** A page of transcripts (200) as its JSON response. */
export const transcriptListResponse = (
  list: Api.TranscriptList
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.orDie(HttpServerResponse.json(transcriptListJson(list)))
