/**
 * POST /transcribe/estimate: a dry run that prices ASR for a video. Nothing is created or charged.
 *
 * `source` is optional in the schema and defaults to `asr` (`estimateDefaultSource`) when neither
 * mode nor source is sent. The default is not applied while decoding: a decoded default would make
 * a request that sent only `mode` look as if it had sent `source` too.
 */
import { Schema } from "effect"
import { AsrOptions, defaults as asrDefaults } from "../asr/options.js"
import { Credits } from "../credits.js"
import { RequestId, VideoId } from "../ids.js"
import { LanguageCode } from "../language.js"
import { LegacySource, Mode } from "../mode/mode.js"
import { NonNegativeNumber, optionalField, ReferenceInput, requestAnnotations } from "./fields.js"

/** The legacy source an estimate prices when neither mode nor source is sent. */
export const estimateDefaultSource: LegacySource = "asr"

export class EstimateRequest extends Schema.Class<EstimateRequest>("EstimateRequest")(
  {
    video: ReferenceInput,
    mode: optionalField(Mode),
    source: optionalField(LegacySource),
    asr_options: Schema.optionalWith(AsrOptions, { default: () => asrDefaults, nullable: true })
  },
  requestAnnotations(
    "EstimateRequest",
    "Price the transcription of a video without starting it (source defaults to asr)"
  )
) {}

/**
 * Said only when the platform lists only dubbed audio tracks for the video: the language speech
 * recognition would hear. On the quotes (`/transcribe/estimate`, `requires_asr_confirmation`) and
 * on the job's start (`processing`).
 */
export const DubbedAudioLanguage = Schema.optional(Schema.NullOr(LanguageCode)).annotations({
  description:
    "Only when the platform lists only dubbed audio tracks for the video: the language speech " +
    "recognition would hear (null when the platform does not tell it)"
})

export class EstimateResponse extends Schema.Class<EstimateResponse>("EstimateResponse")(
  {
    request_id: RequestId,
    video_id: VideoId,
    source: LegacySource,
    mode: Mode,
    duration_seconds: Schema.NullOr(NonNegativeNumber),
    duration_minutes: Schema.NullOr(NonNegativeNumber),
    max_duration_minutes: NonNegativeNumber,
    exceeds_max_duration: Schema.Boolean,
    base_credits: Credits,
    addon_credits: Credits,
    estimated_credits: Credits,
    dubbed_audio_language: DubbedAudioLanguage
  },
  { description: "The ASR base cost plus the add-on surcharge, prorated by duration" }
) {}
