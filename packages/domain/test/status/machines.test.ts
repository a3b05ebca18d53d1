import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, type Schema } from "effect"
import { BatchMachine, BatchStatus } from "../../src/status/batch.js"
import { CollectionMachine, CollectionStatus } from "../../src/status/collection.js"
import { JobMachine, JobStatus } from "../../src/status/job.js"
import { IllegalTransition, StateMachine } from "../../src/status/machine.js"
import { StoredTranscriptMachine, StoredTranscriptStatus } from "../../src/status/stored-transcript.js"
import { ThemesMachine, ThemesStatus } from "../../src/status/themes.js"
import { UploadMachine, UploadStatus } from "../../src/status/upload.js"

/**
 * Each machine's expected table, written out here independently of the source, so that a change
 * to a table fails these tests.
 */
interface Expected<S extends string> {
  readonly initial: ReadonlyArray<S>
  readonly edges: ReadonlyArray<readonly [S, S]>
  readonly final: ReadonlyArray<S>
}

const lawsFor = <S extends string>(
  machine: StateMachine<S>,
  schema: Schema.Schema<S>,
  expected: Expected<S>
) =>
  describe(`${machine.name} machine`, () => {
    const state = Arbitrary.make(schema)
    const allowed = (from: S, to: S) => expected.edges.some(([f, t]) => f === from && t === to)

    it("covers exactly the status schema's values", () => {
      expect([...machine.table.states].sort()).toEqual([...new Set(fc.sample(state, 500))].sort())
    })

    it("accepts every pair inside the table", () => {
      for (const [from, to] of expected.edges) {
        expect(machine.canMove(from, to)).toBe(true)
        expect(machine.move(from, to)).toEqual(Either.right(to))
      }
    })

    it("refuses every pair outside the table with IllegalTransition carrying that pair", () => {
      fc.assert(
        fc.property(state, state, (from, to) => {
          const result = machine.move(from, to)
          if (allowed(from, to)) return Either.isRight(result) && result.right === to
          return (
            Either.isLeft(result) &&
            result.left instanceof IllegalTransition &&
            result.left.machine === machine.name &&
            result.left.from === from &&
            result.left.to === to &&
            !machine.canMove(from, to)
          )
        })
      )
    })

    it("starts a new record only in an initial state", () => {
      fc.assert(
        fc.property(state, (to) => {
          const result = machine.start(to)
          if (expected.initial.includes(to)) return Either.isRight(result) && result.right === to
          return Either.isLeft(result) && result.left.from === null && result.left.to === to
        })
      )
    })

    it("refuses every move out of a final state", () => {
      for (const s of machine.table.states) expect(machine.isFinal(s)).toBe(expected.final.includes(s))
      fc.assert(
        fc.property(fc.constantFrom(...expected.final), state, (from, to) => {
          return Either.isLeft(machine.move(from, to)) && machine.next(from).length === 0
        })
      )
    })

    it("lists no successor for a final state in its table", () => {
      for (const f of machine.table.final) expect(machine.table.transitions[f]).toEqual([])
    })

    it("reaches every state from an initial state", () => {
      expect([...StateMachine.reachable(machine)].sort()).toEqual([...machine.table.states].sort())
    })

    it("never leaves a final state, whatever moves are attempted", () => {
      const initial = fc.constantFrom(...machine.table.initial)
      fc.assert(
        fc.property(initial, fc.array(state, { maxLength: 30 }), (start, attempts) => {
          let current = start
          let finished: S | null = machine.isFinal(start) ? start : null
          for (const to of attempts) {
            current = Either.getOrElse(machine.move(current, to), () => current)
            if (finished !== null && current !== finished) return false
            if (machine.isFinal(current)) finished = current
          }
          return true
        })
      )
    })
  })

lawsFor(JobMachine, JobStatus, {
  initial: ["completed", "processing", "requires_asr_confirmation", "failed"],
  edges: [
    ["processing", "completed"],
    ["processing", "failed"]
  ],
  final: ["completed", "failed", "requires_asr_confirmation"]
})

lawsFor(BatchMachine, BatchStatus, {
  initial: ["processing", "completed", "partial", "failed"],
  edges: [
    ["processing", "completed"],
    ["processing", "partial"],
    ["processing", "failed"]
  ],
  final: ["completed", "partial", "failed"]
})

lawsFor(UploadMachine, UploadStatus, {
  initial: ["registered"],
  edges: [
    ["registered", "uploaded"],
    ["uploaded", "consumed"]
  ],
  final: ["consumed"]
})

lawsFor(ThemesMachine, ThemesStatus, {
  initial: ["locked"],
  edges: [
    ["locked", "processing"],
    ["locked", "completed"],
    ["processing", "completed"],
    ["processing", "refunded"],
    ["refunded", "processing"],
    ["refunded", "completed"]
  ],
  final: ["completed"]
})

lawsFor(StoredTranscriptMachine, StoredTranscriptStatus, {
  initial: ["queued", "processing", "succeeded"],
  edges: [
    ["queued", "processing"],
    ["queued", "failed"],
    ["processing", "succeeded"],
    ["processing", "failed"]
  ],
  final: ["succeeded", "failed"]
})

lawsFor(CollectionMachine, CollectionStatus, {
  initial: ["resolved"],
  edges: [
    ["resolved", "processing"],
    ["resolved", "completed"],
    ["resolved", "partial"],
    ["resolved", "failed"],
    ["processing", "completed"],
    ["processing", "partial"],
    ["processing", "failed"]
  ],
  final: ["completed", "partial", "failed"]
})

describe("StateMachine", () => {
  it("does not count staying in a state as a transition", () => {
    expect(JobMachine.canMove("processing", "processing")).toBe(false)
    expect(ThemesMachine.canMove("locked", "locked")).toBe(false)
  })

  it("refuses moves out of a state the definition marks final even if its table lists some", () => {
    const m = StateMachine.make({
      name: "test",
      states: ["a", "b"],
      initial: ["a"],
      transitions: { a: ["b"], b: ["a"] },
      final: ["b"]
    })
    expect(m.canMove("a", "b")).toBe(true)
    expect(Either.isLeft(m.move("b", "a"))).toBe(true)
  })

  it("describes the refused move in the error message", () => {
    const result = JobMachine.move("completed", "processing")
    expect(Either.isLeft(result) && result.left.message).toBe("job: completed -> processing is not allowed")
    const started = UploadMachine.start("consumed")
    expect(Either.isLeft(started) && started.left.message).toBe("upload: (new) -> consumed is not allowed")
  })
})
