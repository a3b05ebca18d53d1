/** The billable ASR add-ons, each charged per hour of audio, prorated by duration. */
import { Schema } from "effect"

export const AddOn = Schema.Literal(
  "diarization",
  "sentiment",
  "profanity",
  "summarization",
  "custom_formatting",
  "translation",
  "pii_redaction",
  "topic_detection",
  "content_moderation"
).annotations({ identifier: "AddOn", description: "A billable ASR add-on" })
export type AddOn = typeof AddOn.Type

export const allAddOns: ReadonlyArray<AddOn> = AddOn.literals
