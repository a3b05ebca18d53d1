import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import {
  defaultFormat,
  EstimateRequest,
  EstimateResponse,
  estimateDefaultSource,
  TranscribeCompleted,
  TranscribeConfirmation,
  TranscribeDone,
  TranscribeFailed,
  TranscribeProcessing,
  TranscribeRequest,
  TranscribeResponse
} from "../../src/api/index.js"
import { defaults as asrDefaults } from "../../src/asr/options.js"
import type { ModeRequest } from "../../src/mode/resolve.js"

const requestId = "6f1c2b9e-3d4a-4f5b-8c7d-9e0f1a2b3c4d"
const jobId = "0b6e8f4a-1c2d-4e3f-9a8b-7c6d5e4f3a2b"
const uploadId = "a3f1e2d4-5b6c-4d7e-8f90-1a2b3c4d5e6f"

const completedJson = {
  request_id: requestId,
  mode: "captions_only",
  status: "completed",
  data: {
    video_id: "dQw4w9WgXcQ",
    transcript: {
      text: "Never gonna give you up",
      language: "en",
      source: "manual",
      segments: [
        { text: "Never gonna", start: 0, end: 1200 },
        { text: "give you up", start: 1200, end: 2500 }
      ],
      paragraphs: null,
      words: null
    },
    video_title: "A song"
  },
  credits_used: 1,
  job_id: null
}

const confirmationJson = {
  request_id: requestId,
  mode: "auto",
  status: "requires_asr_confirmation",
  job_id: null,
  credits_used: 0,
  estimated_credits: 14,
  base_credits: 8,
  addon_credits: 6,
  duration_minutes: 12.5,
  max_duration_minutes: 480,
  suggestion: "Send the request again with mode auto to start speech recognition"
}

const decodeResponse = Schema.decodeUnknownEither(TranscribeResponse)
const decodeRequest = Schema.decodeUnknownEither(TranscribeRequest)
const encodeResponse = Schema.encodeSync(TranscribeResponse)

describe("transcribe response", () => {
  it("decodes a completed answer with the spec's field names", () => {
    const decoded = decodeResponse(completedJson)
    expect(Either.isRight(decoded)).toBe(true)
    if (Either.isRight(decoded)) {
      expect(decoded.right).toBeInstanceOf(TranscribeCompleted)
      expect(encodeResponse(decoded.right)).toStrictEqual(completedJson)
    }
  })

  it("decodes the quote of requires_asr_confirmation with base and add-on credits", () => {
    const decoded = decodeResponse(confirmationJson)
    expect(Either.isRight(decoded) && decoded.right instanceof TranscribeConfirmation).toBe(true)
    if (Either.isRight(decoded)) expect(encodeResponse(decoded.right)).toStrictEqual(confirmationJson)
  })

  it("tells the 202 answer from the 200 answers by status", () => {
    const processing = {
      request_id: requestId,
      mode: "speech_to_text_only",
      status: "processing",
      job_id: jobId,
      credits_used: 0,
      estimated_credits: 40,
      duration_minutes: null
    }
    expect(Schema.is(TranscribeProcessing)(Schema.decodeUnknownSync(TranscribeResponse)(processing))).toBe(
      true
    )
    expect(Either.isLeft(Schema.decodeUnknownEither(TranscribeDone)(processing))).toBe(true)
    for (const done of [completedJson, confirmationJson]) {
      const value = Schema.decodeUnknownSync(TranscribeResponse)(done)
      expect(Schema.is(TranscribeDone)(value)).toBe(true)
      expect(Schema.is(TranscribeProcessing)(value)).toBe(false)
    }
  })

  it("requires a job id to poll while processing", () => {
    const processing = {
      request_id: requestId,
      mode: "auto",
      status: "processing",
      job_id: null,
      credits_used: 0,
      estimated_credits: 40,
      duration_minutes: 60
    }
    expect(Either.isLeft(decodeResponse(processing))).toBe(true)
  })

  it("carries the error and suggestion of a failed answer, and leaves out data", () => {
    const failed = {
      request_id: requestId,
      mode: "auto",
      status: "failed",
      job_id: null,
      credits_used: 0,
      error: "The video is longer than 480 minutes",
      suggestion: "Transcribe a shorter video",
      duration_minutes: 600,
      max_duration_minutes: 480
    }
    const value = Schema.decodeUnknownSync(TranscribeResponse)(failed)
    expect(value).toBeInstanceOf(TranscribeFailed)
    expect("data" in value).toBe(false)
  })

  it("rejects an unknown status, an unknown mode and negative credits", () => {
    expect(Either.isLeft(decodeResponse({ ...completedJson, status: "done" }))).toBe(true)
    expect(Either.isLeft(decodeResponse({ ...completedJson, mode: "asr" }))).toBe(true)
    expect(Either.isLeft(decodeResponse({ ...completedJson, credits_used: -1 }))).toBe(true)
    expect(Either.isLeft(decodeResponse({ ...completedJson, credits_used: 1.5 }))).toBe(true)
  })

  it("keeps paragraphs and words nullable but present, and times in integer milliseconds", () => {
    const { paragraphs: _p, ...withoutParagraphs } = completedJson.data.transcript
    const withTranscript = (transcript: object) => ({
      ...completedJson,
      data: { ...completedJson.data, transcript }
    })
    expect(Either.isLeft(decodeResponse(withTranscript(withoutParagraphs)))).toBe(true)
    const fractional = {
      ...completedJson.data.transcript,
      segments: [{ text: "x", start: 0.5, end: 1 }]
    }
    expect(Either.isLeft(decodeResponse(withTranscript(fractional)))).toBe(true)
  })

  it("accepts asr_intelligence with requested features and null for the others", () => {
    const data = {
      ...completedJson.data,
      asr_intelligence: {
        summary: "A song about commitment",
        topics: { summary: { Music: 0.92 }, results: [{ text: "Never gonna" }] },
        sentiment: [{ text: "Never gonna", sentiment: "POSITIVE", confidence: 0.8, start: 0, end: 1200 }],
        entities: null,
        auto_highlights: { results: [{ text: "give you up", count: 3, rank: 0.4 }] },
        chapters: [{ summary: "s", headline: "h", gist: "g", start: 0, end: 2500 }]
      }
    }
    expect(Either.isRight(decodeResponse({ ...completedJson, data }))).toBe(true)
    const badSentiment = {
      ...data,
      asr_intelligence: { sentiment: [{ text: "x", sentiment: "HAPPY", confidence: 0.5, start: 0, end: 1 }] }
    }
    expect(Either.isLeft(decodeResponse({ ...completedJson, data: badSentiment }))).toBe(true)
    const badRank = {
      ...data,
      asr_intelligence: { auto_highlights: { results: [{ text: "x", count: 1, rank: 1.5 }] } }
    }
    expect(Either.isLeft(decodeResponse({ ...completedJson, data: badRank }))).toBe(true)
  })
})

describe("transcribe request", () => {
  it("applies the format defaults (timestamp on, paragraphs and words off) and the ASR option defaults", () => {
    const request = Schema.decodeUnknownSync(TranscribeRequest)({ video: "dQw4w9WgXcQ" })
    expect(request.format).toStrictEqual(defaultFormat)
    expect({ ...request.format }).toStrictEqual({ timestamp: true, paragraphs: false, words: false })
    expect(request.asr_options).toStrictEqual(asrDefaults)
    expect(request.mode).toBeUndefined()
    expect("source" in request).toBe(false)
  })

  it("reads a partly given format with the defaults for the rest", () => {
    const request = Schema.decodeUnknownSync(TranscribeRequest)({ video: "x", format: { words: true } })
    expect({ ...request.format }).toStrictEqual({ timestamp: true, paragraphs: false, words: true })
  })

  it("keeps every field the spec names, with its exact name", () => {
    const request = Schema.decodeUnknownSync(TranscribeRequest)({
      video: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      upload_id: uploadId,
      mode: "auto",
      language: "en",
      source: "asr",
      allow_asr: true,
      format: { timestamp: false, paragraphs: true, words: true },
      webhook_url: "https://example.com/hook",
      asr_options: { speakerLabels: true, customFormatDate: "yyyy-mm-dd" }
    })
    expect(request.upload_id).toBe(uploadId)
    expect(request.allow_asr).toBe(true)
    expect(request.webhook_url).toBe("https://example.com/hook")
    expect(request.asr_options.speakerLabels).toBe(true)
    expect(Object.keys(Schema.encodeSync(TranscribeRequest)(request)).sort()).toStrictEqual(
      [
        "allow_asr",
        "asr_options",
        "format",
        "language",
        "mode",
        "source",
        "upload_id",
        "video",
        "webhook_url"
      ].sort()
    )
  })

  it("takes null as not sent", () => {
    const request = Schema.decodeUnknownSync(TranscribeRequest)({
      video: "dQw4w9WgXcQ",
      upload_id: null,
      mode: null,
      webhook_url: null,
      format: null,
      asr_options: null
    })
    expect("upload_id" in request || "mode" in request || "webhook_url" in request).toBe(false)
    expect(request.format).toStrictEqual(defaultFormat)
  })

  it("leaves the cross-field rules to mode resolution: an empty body decodes", () => {
    const decoded = decodeRequest({})
    expect(Either.isRight(decoded)).toBe(true)
    if (Either.isRight(decoded)) {
      const forResolution: ModeRequest = decoded.right
      expect(forResolution.mode).toBeUndefined()
    }
  })

  it("rejects wrong enumerations, ids and URLs, and reports every issue at once", () => {
    expect(Either.isLeft(decodeRequest({ video: "x", mode: "asr_only" }))).toBe(true)
    expect(Either.isLeft(decodeRequest({ video: "x", source: "human" }))).toBe(true)
    expect(Either.isLeft(decodeRequest({ upload_id: "not-a-uuid" }))).toBe(true)
    expect(Either.isLeft(decodeRequest({ video: "x", webhook_url: "ftp://example.com/hook" }))).toBe(true)
    expect(Either.isLeft(decodeRequest({ video: "x", language: "english" }))).toBe(true)
    expect(Either.isLeft(decodeRequest({ video: "" }))).toBe(true)
    const all = decodeRequest({ video: 1, mode: "x", allow_asr: "yes" })
    expect(Either.isLeft(all)).toBe(true)
    if (Either.isLeft(all)) {
      const message = all.left.message
      for (const field of ["video", "mode", "allow_asr"]) expect(message).toContain(`["${field}"]`)
    }
  })
})

describe("estimate", () => {
  it("requires video and leaves source to resolution, whose default is asr", () => {
    expect(Either.isLeft(Schema.decodeUnknownEither(EstimateRequest)({ mode: "auto" }))).toBe(true)
    const request = Schema.decodeUnknownSync(EstimateRequest)({ video: "dQw4w9WgXcQ", mode: "auto" })
    expect("source" in request).toBe(false)
    expect(estimateDefaultSource).toBe("asr")
    expect(request.asr_options).toStrictEqual(asrDefaults)
  })

  it("decodes an estimate with the spec's field names", () => {
    const json = {
      request_id: requestId,
      video_id: "dQw4w9WgXcQ",
      source: "asr",
      mode: "speech_to_text_only",
      duration_seconds: 213,
      duration_minutes: 3.55,
      max_duration_minutes: 480,
      exceeds_max_duration: false,
      base_credits: 3,
      addon_credits: 1,
      estimated_credits: 4
    }
    const decoded = Schema.decodeUnknownSync(EstimateResponse)(json)
    expect(Schema.encodeSync(EstimateResponse)(decoded)).toStrictEqual(json)
    expect(
      Either.isLeft(Schema.decodeUnknownEither(EstimateResponse)({ ...json, duration_minutes: -1 }))
    ).toBe(true)
  })
})
