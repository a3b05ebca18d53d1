/**
 * The error of mode resolution: a request whose mode fields (video, upload_id, mode, legacy source
 * and allow_asr, webhook_url) break a rule of POST /transcribe or POST /batch. It names the field
 * so the API can answer 400 `invalid_request` pointing at it.
 */
import { Schema } from "effect"

/** The request fields mode resolution reads, as the spec names them. */
export const ModeField = Schema.Literal("video", "upload_id", "mode", "source", "allow_asr", "webhook_url")
export type ModeField = typeof ModeField.Type

export class ModeError extends Schema.TaggedError<ModeError>()("ModeError", {
  field: ModeField,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.field}: ${this.reason}`
  }
}
