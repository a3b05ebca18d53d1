/**
 * Speech to text: turns audio into a timed transcript. AssemblyAI in production, Debian's
 * pocketsphinx on the embedded default; both implement this port and pass the same contract suite
 * (`@verbatim/testkit`, `speechToTextContract`).
 *
 * The use cases call `supports` before anything is charged or queued, so an option the engine
 * cannot honour is refused with a message naming the option and the engine; `transcribe` runs in
 * the worker. Every time is integer milliseconds.
 */
import type { Api, Asr, Language, Transcript } from "@verbatim/domain"
import { Context, type Effect, Schema, type Stream } from "effect"

/** Audio to recognise: a platform video's track or an uploaded file, read once. */
export interface AudioInput {
  /** What the audio is, for messages and logs: `video dQw4w9WgXcQ`, `upload 6f1c…`. */
  readonly name: string
  /** As the source names it, e.g. `audio/wav`, `audio/webm; codecs="opus"`, `video/mp4`. */
  readonly mimeType: string
  readonly contentLength: number | null
  /** The duration the source claims, when it knows; the engine reports the real one. */
  readonly durationSeconds: number | null
  /** The bytes, streamed; a failure to read them ends recognition with `SpeechFailed`. */
  readonly bytes: Stream.Stream<Uint8Array, AudioReadError>
}

/** The bytes of an audio input could not be read (platform or storage failure). */
export class AudioReadError extends Schema.TaggedError<AudioReadError>()("AudioReadError", {
  reason: Schema.String,
  /** True when reading again later may succeed (a timeout, a 5xx). */
  retryable: Schema.Boolean
}) {}

/** What an engine heard. */
export interface Recognition {
  /** The language of the speech: the one asked for, or the one detected. */
  readonly language: Language.LanguageCode
  /** The real duration of the audio, in ms: what is charged for. */
  readonly durationMs: number
  readonly text: string
  /**
   * Timed segments (sentences or utterances), in order, each with its `words` when the engine
   * gives word times.
   */
  readonly segments: ReadonlyArray<Transcript.Segment>
  /** Every recognised word with its times, in order; empty when the engine gives none. */
  readonly words: ReadonlyArray<Transcript.Word>
  /** The `asr_intelligence` fields of the features that applied; null when none was asked. */
  readonly intelligence: Api.AsrIntelligence | null
  /** The text in the `translateTo` language, when translation applied; empty otherwise. */
  readonly translations: ReadonlyArray<SpokenTranslation>
}

/** The recognised speech translated into another language, as a whole text (engines give no times). */
export interface SpokenTranslation {
  readonly language: Language.LanguageCode
  readonly text: string
}

/** The engine cannot honour an option that applies (a language, an intelligence feature). */
export class SpeechUnsupported extends Schema.TaggedError<SpeechUnsupported>()("SpeechUnsupported", {
  engine: Schema.String,
  /** The `asr_options` field, as the spec spells it. */
  option: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `asr_options.${this.option}: ${this.reason} (speech recognition engine: ${this.engine})`
  }
}

/** No engine is configured on this server. */
export class SpeechUnavailable extends Schema.TaggedError<SpeechUnavailable>()("SpeechUnavailable", {
  reason: Schema.String
}) {}

/** Recognition did not produce a transcript. */
export class SpeechFailed extends Schema.TaggedError<SpeechFailed>()("SpeechFailed", {
  engine: Schema.String,
  reason: Schema.String,
  /**
   * True when the same job may succeed later (the engine was busy, timed out, answered 429 or
   * 5xx after the adapter's own retries); false when it never will (unreadable audio, no speech,
   * the engine refused the file).
   */
  retryable: Schema.Boolean
}) {}

export type SpeechError = SpeechUnsupported | SpeechUnavailable | SpeechFailed

export interface SpeechToTextService {
  /** The engine's name, as messages and decisions name it: `pocketsphinx`, `assemblyai`. */
  readonly engine: string
  /**
   * Fails when these options ask for something this engine cannot do. Cheap and local: called on
   * the request path before any credit is checked.
   */
  readonly supports: (
    options: Asr.EffectiveAsrOptions
  ) => Effect.Effect<void, SpeechUnsupported | SpeechUnavailable>
  /** Recognises the audio with these options. Interruptible: an interrupted run cleans up after itself. */
  readonly transcribe: (
    audio: AudioInput,
    options: Asr.EffectiveAsrOptions
  ) => Effect.Effect<Recognition, SpeechError>
}

export class SpeechToText extends Context.Tag("@verbatim/core/SpeechToText")<
  SpeechToText,
  SpeechToTextService
>() {}
