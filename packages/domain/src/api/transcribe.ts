/**
 * POST /transcribe: the request, the transcript payload, and the response in one variant per
 * status, so the 200 answers (completed, requires_asr_confirmation, failed) and the 202 answer
 * (processing) are told apart by their literal `status`.
 *
 * The request schema checks structure only; which of video, upload_id, mode, source, allow_asr and
 * webhook_url may go together is decided by mode resolution. Optional request fields may be sent as
 * null, which means "not sent". In responses, nullable fields are always present; fields the spec
 * types as non-nullable are left out on the statuses they do not apply to.
 */
import { Schema } from "effect"
import { AsrOptions, defaults as asrDefaults } from "../asr/options.js"
import { Credits } from "../credits.js"
import { JobId, RequestId, UploadId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { LegacySource, Mode } from "../mode/mode.js"
import { Segment, SourceKind, Word } from "../transcript/segment.js"
import { AsrIntelligence } from "./asr-intelligence.js"
import { DubbedAudioLanguage } from "./estimate.js"
import {
  absentUnless,
  HttpUrl,
  NonNegativeNumber,
  optionalField,
  ReferenceInput,
  requestAnnotations
} from "./fields.js"

const flag = (value: boolean) => Schema.optionalWith(Schema.Boolean, { default: () => value, nullable: true })

/**
 * Format options (`format`). Defaults: timestamped segments on, paragraphs and word timestamps off,
 * as GET /jobs/{job_id} defaults include_segments, include_paragraphs and include_words.
 */
export class FormatOptions extends Schema.Class<FormatOptions>("FormatOptions")(
  {
    timestamp: flag(true),
    paragraphs: flag(false),
    words: flag(false)
  },
  requestAnnotations(
    "FormatOptions",
    "timestamp: include timestamped segments (default true); paragraphs: include paragraph groupings (default false); words: include word-level timestamps (default false)"
  )
) {}

/** The format a request without `format` gets. */
export const defaultFormat: FormatOptions = new FormatOptions({})

/** The body of POST /transcribe. A missing `format` or `asr_options` decodes to its defaults. */
export class TranscribeRequest extends Schema.Class<TranscribeRequest>("TranscribeRequest")(
  {
    video: optionalField(ReferenceInput),
    upload_id: optionalField(UploadId),
    mode: optionalField(Mode),
    language: optionalField(LanguageCode),
    source: optionalField(LegacySource),
    allow_asr: optionalField(Schema.Boolean),
    format: Schema.optionalWith(FormatOptions, { default: () => defaultFormat, nullable: true }),
    webhook_url: optionalField(HttpUrl).annotations({
      description:
        "Where the result of a speech recognition job is POSTed (signed, Standard Webhooks) when it finishes. " +
        "Required with upload_id and with the legacy source=asr or allow_asr=true; optional with mode " +
        "(poll job_id instead); ignored, neither checked nor stored, by captions_only and human_captions_only. " +
        "Must not resolve to a private, loopback, link-local or metadata address."
    }),
    asr_options: Schema.optionalWith(AsrOptions, { default: () => asrDefaults, nullable: true })
  },
  requestAnnotations("TranscribeRequest", "Transcribe one video (video) or one finalized upload (upload_id)")
) {}

/** The transcript inside `data`. */
export class TranscriptPayload extends Schema.Class<TranscriptPayload>("TranscriptPayload")(
  {
    text: Schema.String,
    language: LanguageCode,
    source: SourceKind,
    segments: Schema.Array(Segment),
    paragraphs: Schema.NullOr(Schema.Array(Segment)),
    words: Schema.NullOr(Schema.Array(Word))
  },
  { description: "Full text, the language actually returned, its source and its timed pieces" }
) {}

/** `data` of a transcribe response, a job and a batch result. */
export class TranscribeData extends Schema.Class<TranscribeData>("TranscribeData")(
  {
    /** The video id; for uploads, the upload id. */
    video_id: Schema.String,
    transcript: TranscriptPayload,
    video_title: Schema.NullOr(Schema.String),
    /** Absent unless an ASR intelligence option was enabled. */
    asr_intelligence: absentUnless(AsrIntelligence)
  },
  { description: "A transcript with its video; video_id is the upload id for uploads" }
) {}

const responseFields = {
  request_id: RequestId,
  /** The mode the request ran with (legacy fields resolved to their mode). */
  mode: Mode
}

/** 200: the transcript is served. */
export class TranscribeCompleted extends Schema.Class<TranscribeCompleted>("TranscribeCompleted")(
  {
    ...responseFields,
    status: Schema.Literal("completed"),
    data: TranscribeData,
    credits_used: Credits,
    job_id: Schema.NullOr(JobId),
    /** Our addition: what was served, when it is not what was asked for (an owned transcript, options not applied). */
    note: absentUnless(Schema.String).annotations({
      description:
        "Present when the answer is not quite what was asked: e.g. an owned transcript served again without the asr_options sent"
    })
  },
  { description: "The transcript is served (200)" }
) {}

/** 202: ASR started; poll `job_id` or wait for the webhook. */
export class TranscribeProcessing extends Schema.Class<TranscribeProcessing>("TranscribeProcessing")(
  {
    ...responseFields,
    status: Schema.Literal("processing"),
    job_id: JobId,
    credits_used: Credits,
    estimated_credits: Credits,
    duration_minutes: Schema.NullOr(NonNegativeNumber),
    dubbed_audio_language: DubbedAudioLanguage
  },
  { description: "ASR started (202); poll job_id or wait for the webhook" }
) {}

/** 200: ASR would be needed; the quote to confirm by sending the request again with an explicit mode. */
export class TranscribeConfirmation extends Schema.Class<TranscribeConfirmation>("TranscribeConfirmation")(
  {
    ...responseFields,
    status: Schema.Literal("requires_asr_confirmation"),
    job_id: Schema.NullOr(JobId),
    credits_used: Credits,
    estimated_credits: Credits,
    base_credits: Credits,
    addon_credits: Credits,
    duration_minutes: Schema.NullOr(NonNegativeNumber),
    max_duration_minutes: NonNegativeNumber,
    suggestion: absentUnless(Schema.String),
    dubbed_audio_language: DubbedAudioLanguage
  },
  { description: "ASR would be needed (200): the quote; send again with an explicit mode to confirm" }
) {}

/** 200: the request could not be served (for example a video too long for ASR). */
export class TranscribeFailed extends Schema.Class<TranscribeFailed>("TranscribeFailed")(
  {
    ...responseFields,
    status: Schema.Literal("failed"),
    job_id: Schema.NullOr(JobId),
    credits_used: Credits,
    error: Schema.String,
    suggestion: absentUnless(Schema.String),
    duration_minutes: absentUnless(Schema.NullOr(NonNegativeNumber)),
    max_duration_minutes: absentUnless(NonNegativeNumber)
  },
  { description: "The request could not be served (200), with the reason and a suggestion" }
) {}

/** The answers POST /transcribe gives with status 200. */
export const TranscribeDone = Schema.Union(
  TranscribeCompleted,
  TranscribeConfirmation,
  TranscribeFailed
).annotations({ identifier: "TranscribeDone", description: "A 200 answer of POST /transcribe" })
export type TranscribeDone = typeof TranscribeDone.Type

/** Every answer of POST /transcribe. */
export const TranscribeResponse = Schema.Union(
  TranscribeCompleted,
  TranscribeProcessing,
  TranscribeConfirmation,
  TranscribeFailed
).annotations({ identifier: "TranscribeResponse", description: "The answer of POST /transcribe" })
export type TranscribeResponse = typeof TranscribeResponse.Type
