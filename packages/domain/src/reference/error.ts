/**
 * The error of reference parsing: user input that names no video, playlist or channel in a form
 * Verbatim understands. `reason` says what was wrong in words a caller can act on.
 */
import { Schema } from "effect"

/** What the input was supposed to name. */
export const ReferenceKind = Schema.Literal("video", "playlist", "channel")
export type ReferenceKind = typeof ReferenceKind.Type

export class InvalidReference extends Schema.TaggedError<InvalidReference>()("InvalidReference", {
  kind: ReferenceKind,
  input: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `not a ${this.kind} reference: ${this.reason}`
  }
}
