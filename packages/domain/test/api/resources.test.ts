import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import {
  BatchFinished,
  BatchProcessing,
  BatchRequest,
  BatchResponse,
  BulkDeleteRequest,
  ChannelResolveRequest,
  CreditsResponse,
  ErrorBody,
  HealthResponse,
  Job,
  JobCompleted,
  JobFinished,
  JobList,
  maxBulkDeleteIds,
  PlaylistResolveRequest,
  PlaylistResolveResponse,
  StoredTranscript,
  ThemesLocked,
  ThemesProcessing,
  ThemesResponse,
  ThemesState,
  TranscriptListItem,
  TranslateRequest,
  UploadCompleteResponse,
  UploadCreateRequest
} from "../../src/api/index.js"

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
const accepts = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Either.isRight(Schema.decodeUnknownEither(schema)(input))
const at = "2026-11-02T10:00:00.000Z"

describe("uploads", () => {
  const valid = { filename: "talk.mp3", mime_type: "audio/mpeg", size_bytes: 1024, duration_sec: 60 }

  it("accepts audio/ and video/ MIME types only", () => {
    for (const mime of ["audio/mpeg", "video/mp4", "audio/webm;codecs=opus", "Video/QuickTime"]) {
      expect(accepts(UploadCreateRequest, { ...valid, mime_type: mime })).toBe(true)
    }
    for (const mime of ["image/png", "application/octet-stream", "audio/", "audio", "xaudio/mpeg", ""]) {
      expect(accepts(UploadCreateRequest, { ...valid, mime_type: mime })).toBe(false)
    }
  })

  it("takes the size and duration limits as inclusive, and requires positive integers", () => {
    expect(accepts(UploadCreateRequest, { ...valid, size_bytes: 2147483648 })).toBe(true)
    expect(accepts(UploadCreateRequest, { ...valid, size_bytes: 2147483649 })).toBe(false)
    expect(accepts(UploadCreateRequest, { ...valid, size_bytes: 0 })).toBe(false)
    expect(accepts(UploadCreateRequest, { ...valid, duration_sec: 28800 })).toBe(true)
    expect(accepts(UploadCreateRequest, { ...valid, duration_sec: 28801 })).toBe(false)
    expect(accepts(UploadCreateRequest, { ...valid, duration_sec: 1.5 })).toBe(false)
  })

  it("requires every field of the create request", () => {
    for (const key of Object.keys(valid)) {
      const { [key as keyof typeof valid]: _, ...rest } = valid
      expect(accepts(UploadCreateRequest, rest)).toBe(false)
    }
  })

  it("reports only the status uploaded on completion", () => {
    const body = { upload_id: uuid(1), status: "uploaded", filename: "talk.mp3", duration_sec: null }
    expect(accepts(UploadCompleteResponse, body)).toBe(true)
    expect(accepts(UploadCompleteResponse, { ...body, status: "registered" })).toBe(false)
  })
})

describe("batches", () => {
  it("takes 1 to 3000 video ids", () => {
    const ids = (n: number) => Array.from({ length: n }, () => "dQw4w9WgXcQ")
    expect(accepts(BatchRequest, { video_ids: ids(1) })).toBe(true)
    expect(accepts(BatchRequest, { video_ids: ids(3000) })).toBe(true)
    expect(accepts(BatchRequest, { video_ids: ids(3001) })).toBe(false)
    expect(accepts(BatchRequest, { video_ids: [] })).toBe(false)
    expect(accepts(BatchRequest, {})).toBe(false)
  })

  const batch = {
    batch_id: uuid(2),
    status: "processing",
    results: [],
    summary: { total: 2, succeeded: 0, failed: 0, processing: 2 },
    credits_used: 0,
    poll_url: "https://verbatim.example/api/v2/batch/00000000-0000-4000-8000-000000000002",
    webhook_delivered: false,
    webhook_failed: false,
    webhook_attempts: 0,
    created_at: at,
    started_at: null,
    completed_at: null
  }

  it("tells a running batch (202) from a finished one (200) by status", () => {
    expect(Schema.decodeUnknownSync(BatchResponse)(batch)).toBeInstanceOf(BatchProcessing)
    for (const status of ["completed", "partial", "failed"]) {
      const finished = { ...batch, status, completed_at: at }
      expect(Schema.decodeUnknownSync(BatchResponse)(finished)).toBeInstanceOf(BatchFinished)
    }
    expect(accepts(BatchFinished, batch)).toBe(false)
    expect(accepts(BatchResponse, { ...batch, status: "queued" })).toBe(false)
  })

  it("encodes *_at fields back to ISO 8601 strings", () => {
    const decoded = Schema.decodeUnknownSync(BatchResponse)(batch)
    expect(Schema.encodeSync(BatchResponse)(decoded)).toStrictEqual(batch)
  })
})

describe("jobs", () => {
  const base = {
    job_id: uuid(3),
    request_id: uuid(4),
    credits_used: 0,
    created_at: at,
    started_at: at,
    completed_at: null
  }

  it("answers 200 for every status but processing", () => {
    expect(accepts(JobFinished, { ...base, status: "processing" })).toBe(false)
    expect(accepts(JobFinished, { ...base, status: "failed", error: "ASR failed" })).toBe(true)
    expect(accepts(JobFinished, { ...base, status: "requires_asr_confirmation" })).toBe(true)
    expect(accepts(Job, { ...base, status: "processing" })).toBe(true)
  })

  it("requires data on a completed job and an error on a failed one", () => {
    expect(accepts(Job, { ...base, status: "completed" })).toBe(false)
    expect(accepts(Job, { ...base, status: "failed" })).toBe(false)
    const data = {
      video_id: uuid(5),
      transcript: { text: "", language: "en", source: "asr", segments: [], paragraphs: null, words: null },
      video_title: null
    }
    expect(Schema.decodeUnknownSync(Job)({ ...base, status: "completed", data })).toBeInstanceOf(JobCompleted)
  })

  it("lists jobs with the spec's pagination names", () => {
    const list = {
      jobs: [
        {
          ...base,
          status: "processing",
          video_id: "dQw4w9WgXcQ",
          video_title: null,
          language: null,
          source: null,
          error: null
        }
      ],
      count: 1,
      pagination: { page: 1, limit: 50, total: 1, totalPages: 1, hasMore: false }
    }
    const { request_id: _, ...item } = list.jobs[0] ?? base
    const json = { ...list, jobs: [item] }
    expect(Schema.encodeSync(JobList)(Schema.decodeUnknownSync(JobList)(json))).toStrictEqual(json)
  })
})

describe("stored transcripts and deletes", () => {
  it("decodes a stored transcript with free-form summary and mind map", () => {
    const json = {
      id: uuid(6),
      video_id: "dQw4w9WgXcQ",
      language: "en",
      text: "hello",
      segments: [{ text: "hello", start: 0, end: 500 }],
      has_timestamps: true,
      source_kind: "auto",
      translated_from: null,
      video_title: null,
      summary: { tldr: "greeting", points: [1, 2] },
      mind_map: null
    }
    const decoded = Schema.decodeUnknownSync(StoredTranscript)(json)
    expect(Schema.encodeSync(StoredTranscript)(decoded)).toStrictEqual(json)
    expect(accepts(StoredTranscript, { ...json, source_kind: "human" })).toBe(false)
    expect(accepts(StoredTranscript, { ...json, summary: "text" })).toBe(false)
    // A machine translation names the language it was made from.
    expect(accepts(StoredTranscript, { ...json, language: "es", translated_from: "en" })).toBe(true)
  })

  it("lists items whose video_title may be null, with segments only when asked for", () => {
    const item = {
      id: uuid(7),
      video_id: uuid(8),
      video_title: null,
      language: "en",
      source_kind: "asr",
      translated_from: null,
      status: "succeeded",
      created_at: at,
      word_count: 120,
      segment_count: 12,
      duration_seconds: 60,
      credits_used: 1
    }
    expect(accepts(TranscriptListItem, item)).toBe(true)
    expect("segments" in Schema.decodeUnknownSync(TranscriptListItem)(item)).toBe(false)
    expect(accepts(TranscriptListItem, { ...item, status: "completed" })).toBe(false)
  })

  it("takes 1 to 1000 transcript uuids in a bulk delete", () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => uuid(i))
    expect(accepts(BulkDeleteRequest, { ids: ids(1) })).toBe(true)
    expect(accepts(BulkDeleteRequest, { ids: ids(1000) })).toBe(true)
    expect(accepts(BulkDeleteRequest, { ids: ids(1001) })).toBe(false)
    expect(accepts(BulkDeleteRequest, { ids: [] })).toBe(false)
    expect(accepts(BulkDeleteRequest, { ids: ["dQw4w9WgXcQ"] })).toBe(false)
    expect(maxBulkDeleteIds).toBe(1000)
  })
})

describe("translate", () => {
  it("requires target_language, defaults allow_ai_fallback to false and knows two providers", () => {
    expect(accepts(TranslateRequest, {})).toBe(false)
    const request = Schema.decodeUnknownSync(TranslateRequest)({
      target_language: "de",
      source_language: null
    })
    expect(request.allow_ai_fallback).toBe(false)
    expect("source_language" in request || "provider" in request).toBe(false)
    expect(accepts(TranslateRequest, { target_language: "de", provider: "platform" })).toBe(true)
    expect(accepts(TranslateRequest, { target_language: "de", provider: "deepl" })).toBe(false)
  })
})

describe("playlists and channels", () => {
  it("needs playlist_url or playlist_id, and a limit from 1 to 100 that defaults to 100", () => {
    expect(accepts(PlaylistResolveRequest, { limit: 5 })).toBe(false)
    const request = Schema.decodeUnknownSync(PlaylistResolveRequest)({
      playlist_id: "PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf"
    })
    expect(request.limit).toBe(100)
    expect(
      accepts(PlaylistResolveRequest, { playlist_url: "https://youtube.com/playlist?list=PL1", limit: 100 })
    ).toBe(true)
    expect(accepts(PlaylistResolveRequest, { playlist_id: "PL1x", limit: 0 })).toBe(false)
    expect(accepts(PlaylistResolveRequest, { playlist_id: "PL1x", limit: 101 })).toBe(false)
  })

  it("answers a resolve with the collection id and collection-video ids", () => {
    const answer = {
      id: uuid(9),
      playlist_id: "PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
      title: null,
      total: 1,
      truncated: false,
      items: [
        {
          id: uuid(10),
          video_id: "dQw4w9WgXcQ",
          title: "A song",
          url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
          published_at: null
        }
      ]
    }
    expect(
      Schema.encodeSync(PlaylistResolveResponse)(Schema.decodeUnknownSync(PlaylistResolveResponse)(answer))
    ).toStrictEqual(answer)
    const { id: _, ...withoutId } = answer
    expect(accepts(PlaylistResolveResponse, withoutId)).toBe(false)
  })

  it("needs a channel reference and reads a handle with or without @", () => {
    expect(accepts(ChannelResolveRequest, { limit: 5 })).toBe(false)
    const withAt = Schema.decodeUnknownSync(ChannelResolveRequest)({ handle: "@verbatim" })
    const without = Schema.decodeUnknownSync(ChannelResolveRequest)({ handle: "verbatim" })
    expect(withAt.handle).toBe("verbatim")
    expect(without.handle).toBe("verbatim")
    expect(Schema.encodeSync(ChannelResolveRequest)(withAt).handle).toBe("@verbatim")
    expect(accepts(ChannelResolveRequest, { handle: "@verbatim", limit: 0 })).toBe(false)
  })
})

describe("themes", () => {
  const theme = {
    id: "t1",
    name: "Commitment",
    summary: "Promises",
    color: "blue",
    color_hex: "#3366FF",
    share: 0.6,
    mention_count: 3,
    moment_count: 1,
    keywords: [
      {
        id: "k1",
        term: "give up",
        aliases: ["giving up"],
        definition: "to stop trying",
        mention_count: 1,
        mentions: [{ segment_index: 0, start: 1200 }]
      }
    ]
  }
  const completed = {
    video_id: "dQw4w9WgXcQ",
    language: "en",
    status: "completed",
    credits_used: 1,
    credits_remaining: 99,
    tldr: "A promise",
    moments: [
      {
        id: "m1",
        theme_id: "t1",
        label: "The promise",
        quote: "Never gonna give you up",
        color_hex: "#3366ff",
        start: 0,
        end: 2500,
        segment_start: 0,
        segment_end: 1
      }
    ],
    themes: [theme]
  }

  it("decodes the POST body with the spec's field names", () => {
    const decoded = Schema.decodeUnknownSync(ThemesState)(completed)
    expect(decoded).toBeInstanceOf(ThemesResponse)
    expect(Schema.encodeSync(ThemesState)(decoded)).toStrictEqual(completed)
    expect(accepts(ThemesState, { ...completed, themes: [{ ...theme, share: 1.2 }] })).toBe(false)
    expect(accepts(ThemesState, { ...completed, themes: [{ ...theme, color_hex: "blue" }] })).toBe(false)
  })

  it("tells locked, processing and completed apart by status", () => {
    const locked = { status: "locked", video_id: "dQw4w9WgXcQ", language: "en", credits_required: 1 }
    const processing = { status: "processing", video_id: "dQw4w9WgXcQ", language: "en" }
    expect(Schema.decodeUnknownSync(ThemesState)(locked)).toBeInstanceOf(ThemesLocked)
    expect(Schema.decodeUnknownSync(ThemesState)(processing)).toBeInstanceOf(ThemesProcessing)
    expect(accepts(ThemesState, { ...locked, status: "refunded" })).toBe(false)
  })
})

describe("small answers", () => {
  it("credits: balance and one of the four plans", () => {
    const body = {
      credits: 120,
      plan: "pro",
      thumbnail_credits: 0,
      held_credits: 3,
      onboarding_completed: true
    }
    expect(accepts(CreditsResponse, body)).toBe(true)
    expect(accepts(CreditsResponse, { ...body, plan: "enterprise" })).toBe(false)
  })

  it("health: status and an ISO timestamp", () => {
    expect(accepts(HealthResponse, { status: "ok", timestamp: at })).toBe(true)
    expect(accepts(HealthResponse, { status: "ok", timestamp: "now" })).toBe(false)
  })

  it("error body: error, message and a details object", () => {
    const body = { error: "invalid_request", message: "video is required", details: { field: "video" } }
    expect(Schema.encodeSync(ErrorBody)(Schema.decodeUnknownSync(ErrorBody)(body))).toStrictEqual(body)
    expect(accepts(ErrorBody, { error: "invalid_request", message: "x" })).toBe(false)
    expect(accepts(ErrorBody, { ...body, details: [] })).toBe(false)
    expect(accepts(ErrorBody, { ...body, error: "teapot" })).toBe(false)
  })
})
