import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import {
  completeUpload,
  consumeUpload,
  UploadAlreadyConsumed,
  UploadMachine,
  UploadNotCompleted,
  UploadStatus
} from "../../src/status/upload.js"

const state = Arbitrary.make(UploadStatus)

describe("upload events", () => {
  it("complete: registered and uploaded answer uploaded; consumed is a 409 conflict", () => {
    expect(completeUpload("registered")).toEqual(Either.right("uploaded"))
    expect(completeUpload("uploaded")).toEqual(Either.right("uploaded"))
    const refused = completeUpload("consumed")
    expect(Either.isLeft(refused) && refused.left).toBeInstanceOf(UploadAlreadyConsumed)
    expect(Either.isLeft(refused) && refused.left.httpStatus).toBe(409)
  })

  it("consume: uploaded becomes consumed; registered and consumed are 409 conflicts", () => {
    expect(consumeUpload("uploaded")).toEqual(Either.right("consumed"))
    const early = consumeUpload("registered")
    expect(Either.isLeft(early) && early.left).toBeInstanceOf(UploadNotCompleted)
    expect(Either.isLeft(early) && early.left.httpStatus).toBe(409)
    const twice = consumeUpload("consumed")
    expect(Either.isLeft(twice) && twice.left).toBeInstanceOf(UploadAlreadyConsumed)
  })

  it("a repeated complete is idempotent", () => {
    fc.assert(
      fc.property(state, (s) => {
        const once = completeUpload(s)
        return Either.isLeft(once) || Either.getOrNull(completeUpload(once.right)) === once.right
      })
    )
  })

  it("every state change an event makes is a move the machine allows", () => {
    fc.assert(
      fc.property(state, (s) =>
        [completeUpload(s), consumeUpload(s)].every(
          (r) => Either.isLeft(r) || r.right === s || UploadMachine.canMove(s, r.right)
        )
      )
    )
  })

  it("every move the machine allows is made by an event", () => {
    fc.assert(
      fc.property(state, state, (from, to) => {
        fc.pre(UploadMachine.canMove(from, to))
        const made = [completeUpload(from), consumeUpload(from)].map(Either.getOrNull)
        return made.includes(to as never)
      })
    )
  })
})
