/**
 * What a resolved request does with one video once the platform has said whether usable captions
 * exist for its mode: serve the captions, start ASR, ask for confirmation (DESIGN decision 1: an
 * ASR mode that is only the account default answers `requires_asr_confirmation` with a quote), or
 * answer `no_captions` (404). ASR never runs under a captions mode, never without consent, and an
 * upload always goes to ASR.
 */
import { Schema } from "effect"
import type { ResolvedMode } from "./resolve.js"

export const TranscriptionStep = Schema.Literal(
  "serve_captions",
  "start_asr",
  "requires_asr_confirmation",
  "no_captions"
).annotations({ identifier: "TranscriptionStep" })
export type TranscriptionStep = typeof TranscriptionStep.Type

/**
 * Whether the request needs ASR for a video: always for an upload or speech_to_text_only, for
 * `auto` when the video has no usable captions, never for a captions mode.
 */
export const needsAsr = (resolved: ResolvedMode, hasUsableCaptions: boolean): boolean =>
  resolved.input === "upload" ||
  resolved.mode === "speech_to_text_only" ||
  (resolved.mode === "auto" && !hasUsableCaptions)

/**
 * The step for one video. `hasUsableCaptions` says whether a caption track fitting the mode exists
 * (any track for auto and captions_only, a human one for human_captions_only); it is not read for
 * uploads and speech_to_text_only.
 */
export const decideStep = (resolved: ResolvedMode, hasUsableCaptions: boolean): TranscriptionStep => {
  if (!needsAsr(resolved, hasUsableCaptions)) {
    return hasUsableCaptions ? "serve_captions" : "no_captions"
  }
  switch (resolved.asr) {
    case "consented":
      return "start_asr"
    case "needs_confirmation":
      return "requires_asr_confirmation"
    case "never":
      return hasUsableCaptions ? "serve_captions" : "no_captions"
  }
}
