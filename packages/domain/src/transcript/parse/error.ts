/** Why a caption file could not be read, and where (1-based line number). */
import { Schema } from "effect"

export class CaptionParseError extends Schema.TaggedError<CaptionParseError>()("CaptionParseError", {
  format: Schema.Literal("srt", "vtt"),
  line: Schema.Int,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.format.toUpperCase()} line ${this.line}: ${this.reason}`
  }
}
