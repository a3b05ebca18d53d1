/**
 * Use cases standing in for core's, so the HTTP contract can be tested alone: answers are fixed,
 * and a few inputs trigger each kind of failure (an ApiError, a store failure, a defect).
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import {
  Access,
  type Account,
  Accounts,
  Balance,
  BatchWork,
  type ChosenTranscript,
  CollectionWork,
  Idempotency,
  JobQueries,
  MediaUploads,
  PersistenceError,
  platformHealthLayer,
  Recommendations,
  SpeechToText,
  SpeechUnavailable,
  StoredTranscripts,
  Themes,
  Transcribe,
  type TranscriptRecord,
  Translate,
  VideoInfoLookup,
  WorkQueue
} from "@verbatim/core"
import { Api, Errors, type Ids, Language, Transcript } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option } from "effect"
import { AppLive } from "../src/index.js"

export const goodKey = `vbt_${"a".repeat(43)}`
export const limitedKey = `vbt_${"l".repeat(43)}`
export const brokenKey = `vbt_${"x".repeat(43)}`
/** Authenticating it finds the database unreachable. */
export const unreachableKey = `vbt_${"u".repeat(43)}`

/** What the readiness probes see: flip to take the stub database down. */
export const stubHealth = { databaseDown: false }

const createdAt = DateTime.unsafeMake("2026-11-01T00:00:00Z")
const en = Language.LanguageCode.make("en")
const de = Language.LanguageCode.make("de")

export const account: Account = {
  id: "6f1c7a0e-1111-4a4a-8a8a-000000000001" as Ids.AccountId,
  name: "stub",
  plan: "pro",
  defaultMode: "captions_only",
  onboardingCompleted: true,
  createdAt
}

const limitedAccount: Account = { ...account, id: "6f1c7a0e-1111-4a4a-8a8a-000000000002" as Ids.AccountId }

const AccessStub = Layer.succeed(Access, {
  authenticate: (bearer) =>
    bearer === goodKey
      ? Effect.succeed(account)
      : bearer === limitedKey
        ? Effect.succeed(limitedAccount)
        : bearer === brokenKey
          ? Effect.fail(
              new PersistenceError({ operation: "findByKeyHash", cause: new Error("connection lost") })
            )
          : bearer === unreachableKey
            ? Effect.fail(
                new PersistenceError({
                  operation: "findByKeyHash",
                  cause: new Error("connect ECONNREFUSED 127.0.0.1:5432"),
                  unavailable: true
                })
              )
            : Effect.fail(
                Errors.apiError(
                  "invalid_api_key",
                  "Missing or invalid API key: the key is unknown or revoked"
                )
              ),
  takeRequest: (who) =>
    Effect.succeed(
      who.id === limitedAccount.id
        ? { allowed: false, limit: 2, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 }
        : { allowed: true, limit: 50, remaining: 49, resetSeconds: 1, retryAfterSeconds: 0 }
    )
})

const BalanceStub = Layer.succeed(Balance, {
  credits: (who) =>
    Effect.succeed(
      new Api.CreditsResponse({
        credits: 42,
        plan: who.plan,
        thumbnail_credits: 0,
        held_credits: 0,
        onboarding_completed: who.onboardingCompleted
      })
    )
})

export const requestId = "6f1c7a0e-2222-4a4a-8a8a-000000000001" as Ids.RequestId
export const jobId = "6f1c7a0e-3333-4a4a-8a8a-000000000001" as Ids.JobId
const transcriptId = "6f1c7a0e-4444-4a4a-8a8a-000000000001" as Ids.TranscriptId

export const segments = [
  new Transcript.Segment({ text: "Hello <world> & all", start: 0, end: 1500 }),
  new Transcript.Segment({ text: "Second line", start: 1500, end: 3200 })
]

/**
 * Transcribe by video: `dQw4w9WgXcQ` completes (200), `asrasrasr01` starts ASR (202), `broke` fails
 * with a store failure, `defect` dies, `payme` is short of credits; anything else has no captions.
 */
const transcribeStub: Transcribe["Type"]["transcribe"] = (_who, request) => {
  switch (request.video) {
    case "dQw4w9WgXcQ":
      return Effect.succeed(
        new Api.TranscribeCompleted({
          request_id: requestId,
          mode: "captions_only",
          status: "completed",
          credits_used: 1,
          job_id: jobId,
          data: new Api.TranscribeData({
            video_id: "dQw4w9WgXcQ",
            video_title: "A title",
            transcript: new Api.TranscriptPayload({
              text: "Hello",
              language: en,
              source: "manual",
              segments,
              paragraphs: null,
              words: null
            })
          })
        })
      )
    case "asrasrasr01":
      return Effect.succeed(
        new Api.TranscribeProcessing({
          request_id: requestId,
          mode: "auto",
          status: "processing",
          job_id: jobId,
          credits_used: 0,
          estimated_credits: 3,
          duration_minutes: 4
        })
      )
    case "broke":
      return Effect.fail(new PersistenceError({ operation: "insertJob", cause: new Error("disk full") }))
    case "defect":
      return Effect.die(new Error("boom"))
    case "payme":
      return Effect.fail(Errors.apiError("payment_required", "Insufficient credits: 1 needed, 0 left"))
    default:
      return Effect.fail(Errors.apiError("no_captions"))
  }
}

const TranscribeStub = Layer.succeed(Transcribe, {
  transcribe: transcribeStub,
  transcribePreEncoded: transcribeStub,
  estimate: () => Effect.fail(Errors.apiError("asr_unavailable"))
})

const JobsStub = Layer.succeed(JobQueries, {
  get: (_who, id) =>
    id === jobId
      ? Effect.succeed(
          new Api.JobProcessing({
            job_id: jobId,
            request_id: requestId,
            status: "processing",
            credits_used: 0,
            created_at: createdAt,
            started_at: createdAt,
            completed_at: null
          })
        )
      : Effect.fail(Errors.apiError("not_found", `job ${id} not found`)),
  list: (_who, query) =>
    Effect.succeed(
      new Api.JobList({
        jobs: [],
        count: 0,
        pagination: { page: query.page, limit: query.limit, total: 0, totalPages: 0, hasMore: false }
      })
    )
})

const record: TranscriptRecord = {
  id: transcriptId,
  accountId: account.id,
  videoId: "dQw4w9WgXcQ",
  videoTitle: "A title",
  language: en,
  sourceKind: "manual",
  status: "succeeded",
  wordCount: 6,
  segmentCount: 2,
  durationSeconds: 4,
  creditsUsed: 1,
  createdAt,
  channelId: null,
  text: "Hello <world> & all Second line",
  segments,
  hasTimestamps: true,
  summary: null,
  mindMap: null,
  asrIntelligence: null
}

export const chosen: ChosenTranscript = {
  record,
  segments,
  response: new Api.StoredTranscript({
    id: transcriptId,
    video_id: "dQw4w9WgXcQ",
    language: en,
    text: record.text,
    segments,
    has_timestamps: true,
    source_kind: "manual",
    translated_from: null,
    video_title: "A title",
    summary: null,
    mind_map: null
  })
}

const StoredStub = Layer.succeed(StoredTranscripts, {
  list: (_who, query) =>
    Effect.succeed(
      new Api.TranscriptList({
        history: [],
        count: 0,
        pagination: { page: query.page, limit: query.limit, total: 0, totalPages: 0, hasMore: false }
      })
    ),
  get: (_who, videoId, query) =>
    videoId !== "dQw4w9WgXcQ"
      ? Effect.fail(Errors.apiError("not_found", `no transcript of ${videoId}`))
      : query.language !== undefined && query.language !== "en"
        ? Effect.fail(Errors.apiError("forbidden", `no transcript of ${videoId} in ${query.language}`))
        : Effect.succeed(chosen),
  remove: () => Effect.succeed(new Api.DeleteResponse({ success: true, deleted: 1, message: "Deleted 1" })),
  bulkRemove: (_who, request) =>
    Effect.fail(Errors.apiError("forbidden", `none of ${request.ids.length} transcripts is owned`)),
  languages: (_who, videoId) =>
    Effect.succeed(
      new Api.LanguagesResponse({ video_id: videoId, languages: [en], platform_translation_languages: [de] })
    )
})

/** Idempotency is core's (tested over the real wiring); the stubs just run the work. */
const IdempotencyStub = Layer.succeed(
  Idempotency,
  Idempotency.make({ run: (_account, _endpoint, _key, _request, _schema, work) => work })
)

const BatchStub = Layer.succeed(BatchWork, {
  create: () => Effect.fail(Errors.apiError("payment_required", "no credits in the stubs")),
  estimate: () => Effect.fail(Errors.apiError("payment_required", "no credits in the stubs")),
  get: (_who, id) => Effect.fail(Errors.apiError("not_found", `batch ${id} not found`)),
  runItem: () => Effect.void,
  reconcile: Effect.succeed(0)
})

const CollectionsStub = Layer.succeed(
  CollectionWork,
  CollectionWork.make({
    resolvePlaylist: () => Effect.fail(Errors.apiError("plan_required", "no plans in the stubs")),
    resolveChannel: () => Effect.fail(Errors.apiError("plan_required", "no plans in the stubs")),
    playlist: (_who, id) => Effect.fail(Errors.apiError("not_found", `playlist batch ${id} not found`)),
    channel: (_who, id) => Effect.fail(Errors.apiError("not_found", `channel batch ${id} not found`)),
    history: () => Effect.succeed(new Api.CollectionHistoryResponse({ history: [], count: 0 }))
  })
)

const RecommendationsStub = Layer.succeed(
  Recommendations,
  Recommendations.make({
    videos: () =>
      Effect.succeed(new Api.RecommendationsResponse({ recommendations: [], channels: [], count: 0 }))
  })
)

/** Themes: a transcript of dQw4w9WgXcQ is locked; nothing else is owned. */
const ThemesStub = Layer.succeed(Themes, {
  unlock: (_who, videoId) => Effect.fail(Errors.apiError("not_found", `no transcript of ${videoId}`)),
  get: (_who, videoId) =>
    videoId !== "dQw4w9WgXcQ"
      ? Effect.fail(Errors.apiError("not_found", `no transcript of ${videoId}`))
      : Effect.succeed(
          new Api.ThemesLocked({
            status: "locked",
            video_id: videoId,
            language: en,
            credits_required: 1
          })
        ),
  runItem: () => Effect.void,
  reconcile: Effect.succeed(0)
})

/** Translate: nothing is owned, so every translation is 404. */
const TranslateStub = Layer.succeed(Translate, {
  translate: (_who, videoId) => Effect.fail(Errors.apiError("not_found", `no transcript of ${videoId}`))
})

const VideoInfoStub = Layer.succeed(VideoInfoLookup, {
  info: () => Effect.fail(Errors.apiError("not_found", "stub"))
})

const UploadsStub = Layer.succeed(MediaUploads, {
  create: () => Effect.fail(Errors.apiError("storage_unavailable", "no storage in the stubs")),
  complete: (_who, id) => Effect.fail(Errors.apiError("not_found", `upload ${id} not found`)),
  receive: () => Effect.fail(Errors.apiError("forbidden", "the upload URL is not valid")),
  sweep: Effect.succeed(0)
})

/** The ports the readiness probes read. */
const PortsStub = Layer.mergeAll(
  Layer.succeed(Accounts, {
    get: () =>
      stubHealth.databaseDown
        ? Effect.fail(
            new PersistenceError({ operation: "Accounts.get", cause: new Error("down"), unavailable: true })
          )
        : Effect.succeed(Option.none())
  } as unknown as Accounts["Type"]),
  Layer.succeed(WorkQueue, {
    offer: () => Effect.void,
    consume: () => Effect.void,
    depth: () => Effect.succeed({ waiting: 3, delayed: 0, active: 1 })
  }),
  Layer.succeed(SpeechToText, {
    engine: "none",
    supports: () => Effect.fail(new SpeechUnavailable({ reason: "stub" })),
    transcribe: () => Effect.fail(new SpeechUnavailable({ reason: "stub" }))
  }),
  platformHealthLayer()
)

export const UseCasesStub = Layer.mergeAll(
  PortsStub,
  AccessStub,
  BalanceStub,
  TranscribeStub,
  JobsStub,
  StoredStub,
  UploadsStub,
  BatchStub,
  CollectionsStub,
  RecommendationsStub,
  IdempotencyStub,
  ThemesStub,
  TranslateStub,
  VideoInfoStub
)

/** The API as a web handler over the stubs: `Request` in, `Response` out. */
export const makeHandler = () =>
  HttpApiBuilder.toWebHandler(
    Layer.mergeAll(AppLive.pipe(Layer.provide(UseCasesStub)), HttpServer.layerContext)
  )
