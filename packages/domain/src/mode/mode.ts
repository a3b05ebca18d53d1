/** The transcription modes of POST /transcribe and POST /batch, and the legacy fields. */
import { Schema } from "effect"

export const Mode = Schema.Literal(
  "auto",
  "captions_only",
  "human_captions_only",
  "speech_to_text_only"
).annotations({
  identifier: "Mode",
  description:
    "auto: captions first, ASR only if none; captions_only: any captions, never ASR; human_captions_only: human-made captions only; speech_to_text_only: always transcribe the audio"
})
export type Mode = typeof Mode.Type

/** The modes that may run ASR and so charge ASR credits. */
export const asrModes: ReadonlyArray<Mode> = ["auto", "speech_to_text_only"]
export const canUseAsr = (mode: Mode): boolean => asrModes.includes(mode)

/** Legacy `source` of the transcribe request: auto (captions only), manual, asr. */
export const LegacySource = Schema.Literal("auto", "manual", "asr").annotations({
  identifier: "LegacySource",
  description: "Legacy. auto means captions only; manual means human captions; asr means speech recognition"
})
export type LegacySource = typeof LegacySource.Type
