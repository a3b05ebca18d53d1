import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { batchOutcome, summarize } from "../../src/status/batch.js"
import {
  advanceCollection,
  CollectionMachine,
  CollectionStatus,
  collectionOutcome
} from "../../src/status/collection.js"
import { JobStatus } from "../../src/status/job.js"

const videos = fc.array(fc.option(Arbitrary.make(JobStatus), { nil: null }), { maxLength: 30 })

describe("collection outcome", () => {
  it("is resolved while no video was submitted", () => {
    expect(collectionOutcome([])).toBe("resolved")
    expect(collectionOutcome([null, null])).toBe("resolved")
  })

  it("follows the batch rule over the submitted videos", () => {
    fc.assert(
      fc.property(videos, (vs) => {
        const submitted = vs.filter((v): v is JobStatus => v !== null)
        fc.pre(submitted.length > 0)
        return collectionOutcome(vs) === batchOutcome(summarize(submitted))
      })
    )
  })

  it("a finished collection never changes", () => {
    fc.assert(
      fc.property(fc.constantFrom(...CollectionMachine.table.final), videos, (current, vs) => {
        const result = advanceCollection(current, vs)
        return Either.isLeft(result) ? result.left.from === current : result.right === current
      })
    )
  })

  it("advancing never returns to resolved", () => {
    fc.assert(
      fc.property(Arbitrary.make(CollectionStatus), videos, (current, vs) => {
        fc.pre(current !== "resolved")
        const result = advanceCollection(current, vs)
        return Either.isLeft(result) || result.right !== "resolved"
      })
    )
  })
})
