/**
 * Upload status, its machine, and the two events that move an upload: `complete` (POST
 * /uploads/{id}/complete, once the file is found in storage) and `consume` (POST /transcribe with
 * upload_id). Only `uploaded` is ever returned by the API.
 */
import { Either, Schema } from "effect"
import { StateMachine } from "./machine.js"

export const UploadStatus = Schema.Literal("registered", "uploaded", "consumed").annotations({
  identifier: "UploadStatus"
})
export type UploadStatus = typeof UploadStatus.Type

/**
 * The upload machine. Spec, "Upload status":
 *
 * | (none)     | POST /uploads                               | Valid metadata         | registered |
 * | registered | PUT bytes, then POST /uploads/{id}/complete | File found in storage  | uploaded   |
 * | uploaded   | POST /transcribe with upload_id             | ASR started            | consumed   |
 *
 * "A later complete call returns 409." A repeated complete before consumption answers 200 again
 * (DESIGN decision 12); that is the `complete` event staying in uploaded, not a transition.
 */
export const UploadMachine = StateMachine.make({
  name: "upload",
  states: UploadStatus.literals,
  initial: ["registered"],
  transitions: {
    registered: ["uploaded"],
    uploaded: ["consumed"],
    consumed: []
  },
  final: ["consumed"]
})

/** The upload was already used by a transcription (409): it cannot be completed or used again. */
export class UploadAlreadyConsumed extends Schema.TaggedError<UploadAlreadyConsumed>()(
  "UploadAlreadyConsumed",
  {}
) {
  get httpStatus(): 409 {
    return 409
  }
  override get message(): string {
    return "The upload was already consumed by a transcription"
  }
}

/** The upload is registered but its complete call has not succeeded yet (409). */
export class UploadNotCompleted extends Schema.TaggedError<UploadNotCompleted>()("UploadNotCompleted", {}) {
  get httpStatus(): 409 {
    return 409
  }
  override get message(): string {
    return "The upload has not been completed; call POST /uploads/{upload_id}/complete first"
  }
}

/**
 * POST /uploads/{id}/complete, once the file is found in storage: registered becomes uploaded;
 * uploaded stays uploaded (a repeated complete answers 200 again); consumed is refused (409).
 */
export const completeUpload = (state: UploadStatus): Either.Either<"uploaded", UploadAlreadyConsumed> => {
  switch (state) {
    case "registered":
    case "uploaded":
      return Either.right("uploaded")
    case "consumed":
      return Either.left(new UploadAlreadyConsumed())
  }
}

/**
 * POST /transcribe with upload_id: uploaded becomes consumed; registered is refused (409, complete
 * it first) and so is consumed (409, an upload is transcribed once).
 */
export const consumeUpload = (
  state: UploadStatus
): Either.Either<"consumed", UploadNotCompleted | UploadAlreadyConsumed> => {
  switch (state) {
    case "registered":
      return Either.left(new UploadNotCompleted())
    case "uploaded":
      return Either.right("consumed")
    case "consumed":
      return Either.left(new UploadAlreadyConsumed())
  }
}
