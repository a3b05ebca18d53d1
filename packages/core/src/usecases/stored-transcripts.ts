/**
 * The stored-transcript endpoints. Existence is not leaked (DESIGN decision 13): another
 * account's transcripts are simply not there. GET /transcripts/{video_id} answers 404 when the
 * account owns nothing for the video and 403 when it owns other languages but not the one asked
 * for; the best owned transcript is an original (never a machine translation unless asked for by
 * language, or all there is), human captions before auto captions before ASR, newest first.
 */
import { Api, Errors, type Ids, type Language, Plan, Transcript } from "@verbatim/domain"
import { Array as Arr, Effect, Layer, Option, Order } from "effect"
import type { Account } from "../ports/accounts.js"
import { Jobs } from "../ports/jobs.js"
import { type TranscriptRecord, type TranscriptSummary, Transcripts } from "../ports/transcripts.js"
import { VideoPlatform } from "../ports/video-platform.js"
import { notFound } from "./failures.js"
import { alreadyChecked } from "./payload.js"
import { StoredTranscripts } from "./tags.js"

/** Whether a stored transcript is a machine translation (of `translatedFrom`), not an original. */
export const isTranslation = (r: { readonly translatedFrom?: Language.LanguageCode | null | undefined }) =>
  r.translatedFrom !== undefined && r.translatedFrom !== null

/**
 * Best first: originals (captions or ASR) before machine translations, which are served only when
 * asked for by language or when they are all there is; then human captions, auto captions, ASR;
 * newest first within a kind.
 */
export const byPreference: Order.Order<TranscriptRecord> = Order.combine(
  Order.combine(
    Order.mapInput(Order.boolean, (r: TranscriptRecord) => isTranslation(r)),
    Order.mapInput(Transcript.bySourceKind, (r: TranscriptRecord) => r.sourceKind)
  ),
  Order.reverse(Order.mapInput(Order.number, (r: TranscriptRecord) => r.createdAt.epochMillis))
)

const sameLanguage = (a: Language.LanguageCode, b: Language.LanguageCode) =>
  a.toLowerCase() === b.toLowerCase()

/**
 * A list item of GET /transcripts from a stored summary, field by field without validating again
 * (the repository decoded it); pinned to the schemas' own encoding by this module's test.
 */
export const transcriptListItem = (
  item: TranscriptSummary & { readonly segments?: ReadonlyArray<Transcript.Segment> }
) =>
  new Api.TranscriptListItem(
    {
      id: item.id,
      video_id: item.videoId,
      video_title: item.videoTitle,
      language: item.language,
      source_kind: item.sourceKind,
      translated_from: item.translatedFrom ?? null,
      status: item.status,
      created_at: item.createdAt,
      word_count: item.wordCount,
      segment_count: item.segmentCount,
      duration_seconds: item.durationSeconds,
      credits_used: item.creditsUsed,
      ...(item.segments === undefined ? {} : { segments: item.segments })
    },
    alreadyChecked
  )

const deleted = (count: number, what: string) =>
  new Api.DeleteResponse({
    success: true,
    deleted: count,
    message: `deleted ${count} transcript${count === 1 ? "" : "s"} ${what}`
  })

export const StoredTranscriptsLive = Layer.effect(
  StoredTranscripts,
  Effect.gen(function* () {
    const transcripts = yield* Transcripts
    const jobs = yield* Jobs
    const platform = yield* VideoPlatform

    /** The transcript a `id` query names: a transcript id, or the id of the job that produced it. */
    const byId = (account: Account, owned: ReadonlyArray<TranscriptRecord>, id: string) =>
      Effect.gen(function* () {
        const direct = owned.find((r) => r.id === id)
        if (direct !== undefined) return Option.some(direct)
        const job = yield* jobs.get(account.id, id as Ids.JobId)
        return Option.flatMap(job, (j) => Option.fromNullable(owned.find((r) => r.id === j.transcriptId)))
      })

    return StoredTranscripts.of({
      list: (account, query) =>
        transcripts
          .search(account.id, {
            search: query.search,
            status: query.status,
            language: query.language,
            sourceKind: query.source,
            createdFrom: query.date_from,
            createdTo: query.date_to,
            offset: Plan.pageOffset(query.page, query.limit),
            limit: query.limit,
            includeSegments: query.include_segments
          })
          .pipe(
            Effect.map(
              (page) =>
                new Api.TranscriptList(
                  {
                    history: page.items.map(transcriptListItem),
                    count: page.items.length,
                    pagination: Plan.paginate(page.total, query.page, query.limit)
                  },
                  alreadyChecked
                )
            )
          ),

      get: (account, videoId, query) =>
        Effect.gen(function* () {
          const owned = yield* transcripts.owned(account.id, videoId, {})
          if (owned.length === 0) {
            return yield* notFound(`transcript of video ${videoId}`, { video_id: videoId })
          }
          let candidates = owned
          if (query.id !== undefined) {
            const chosen = yield* byId(account, owned, query.id)
            if (Option.isNone(chosen)) {
              return yield* notFound(`transcript ${query.id} of video ${videoId}`, {
                video_id: videoId,
                id: query.id
              })
            }
            candidates = [chosen.value]
          }
          const language = query.language
          if (language !== undefined) {
            candidates = candidates.filter((r) => sameLanguage(r.language, language))
            if (candidates.length === 0) {
              return yield* Errors.apiError(
                "forbidden",
                `the account owns no ${language} transcript of video ${videoId}`,
                { video_id: videoId, language, owned_languages: Arr.dedupe(owned.map((r) => r.language)) }
              )
            }
          }
          const source = query.source
          if (source !== undefined) {
            candidates = candidates.filter((r) => r.sourceKind === source)
          }
          const best = Arr.head(Arr.sort(candidates, byPreference))
          if (Option.isNone(best)) {
            return yield* notFound(`${source ?? ""} transcript of video ${videoId}`, {
              video_id: videoId,
              source
            })
          }
          const record = best.value
          const segments = query.include_timestamps ? record.segments : []
          return {
            record,
            segments: record.segments,
            response: new Api.StoredTranscript(
              {
                id: record.id,
                video_id: record.videoId,
                language: record.language,
                text: record.text,
                segments,
                has_timestamps: query.include_timestamps && record.hasTimestamps,
                source_kind: record.sourceKind,
                translated_from: record.translatedFrom ?? null,
                video_title: record.videoTitle,
                summary: record.summary,
                mind_map: record.mindMap,
                ...(record.asrIntelligence === null ? {} : { asr_intelligence: record.asrIntelligence })
              },
              alreadyChecked
            )
          }
        }),

      remove: (account, videoId, query) =>
        Effect.gen(function* () {
          const count = yield* transcripts.remove(account.id, videoId, {
            language: query.language,
            sourceKind: query.source
          })
          if (count === 0) {
            return yield* notFound(`transcript of video ${videoId} matching the filters`, {
              video_id: videoId,
              ...(query.language === undefined ? {} : { language: query.language }),
              ...(query.source === undefined ? {} : { source: query.source })
            })
          }
          return deleted(count, `of video ${videoId}`)
        }),

      bulkRemove: (account, request) =>
        Effect.gen(function* () {
          const count = yield* transcripts.removeByIds(account.id, Arr.dedupe(request.ids))
          if (count === 0) {
            return yield* Errors.apiError("forbidden", "none of the ids is a transcript this account owns", {
              ids: request.ids.length
            })
          }
          return deleted(count, "by id")
        }),

      languages: (account, videoId, query) =>
        Effect.gen(function* () {
          const languages = yield* transcripts.languages(account.id, videoId)
          if (languages.length === 0) {
            return yield* notFound(`transcript of video ${videoId}`, { video_id: videoId })
          }
          const targets = query.include_youtube_default
            ? yield* platform.video(videoId as Ids.VideoId).pipe(
                Effect.map((details) => details.translationLanguages),
                Effect.catchAll((error) =>
                  Effect.logWarning("platform translation languages unavailable", error).pipe(Effect.as([]))
                )
              )
            : []
          return new Api.LanguagesResponse({
            video_id: videoId,
            languages,
            platform_translation_languages: targets
          })
        })
    })
  })
)
