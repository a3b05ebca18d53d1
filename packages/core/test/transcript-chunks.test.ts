import { describe, expect, it } from "@effect/vitest"
import { Ids } from "@verbatim/domain"
import { FastCheck as fc, Option } from "effect"
import {
  type Chunk,
  type ChunkRule,
  chunkAt,
  cutPoint,
  decodeCursor,
  encodeCursor,
  jsonRule,
  lengthRule,
  type Piece,
  type Position,
  pieceOverhead,
  start,
  type TimedText,
  textRule,
  within
} from "../src/usecases/transcript-chunks.js"

/** Every chunk of a transcript, following `next` from the start. */
const allChunks = (
  segments: ReadonlyArray<TimedText>,
  budget: number,
  rule: ChunkRule = lengthRule
): ReadonlyArray<Chunk> => {
  const chunks: Array<Chunk> = []
  let from: Option.Option<Position> = Option.some(start)
  while (Option.isSome(from)) {
    const chunk = chunkAt(segments, from.value, budget, rule)
    chunks.push(chunk)
    from = chunk.next
    if (chunks.length > 100_000) throw new Error("no progress")
  }
  return chunks
}

/** The segments the pieces of every chunk make, joined by index. */
const joined = (chunks: ReadonlyArray<Chunk>): ReadonlyArray<TimedText> => {
  const bySegment = new Map<number, Array<Piece>>()
  for (const piece of chunks.flatMap((chunk) => chunk.pieces)) {
    bySegment.set(piece.segment, [...(bySegment.get(piece.segment) ?? []), piece])
  }
  return [...bySegment.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, pieces]) => ({
      text: pieces.map((p) => p.text).join(""),
      start: (pieces[0] as Piece).start,
      end: (pieces[0] as Piece).end
    }))
}

const cost = (chunk: Chunk) => chunk.pieces.reduce((sum, piece) => sum + piece.text.length + pieceOverhead, 0)

const segmentArb = fc.record({
  text: fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.lorem({ maxCount: 400 }),
    fc.string({ unit: "grapheme", maxLength: 300 })
  ),
  start: fc.nat(10_000_000),
  end: fc.nat(10_000_000)
})

describe("transcript chunks", () => {
  it("counted as JSON or as plain text, join to the whole and keep each chunk's JSON within its budget (property)", () => {
    const escapes = fc.string({
      unit: fc.constantFrom("a", " ", '"', "\\", "\n", "\u0001", "é", "😀"),
      maxLength: 400
    })
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: escapes, start: fc.nat(10_000_000), end: fc.nat(10_000_000) }), {
          maxLength: 40
        }),
        fc.integer({ min: 500, max: 3_000 }),
        fc.constantFrom(jsonRule, textRule),
        (segments, budget, rule) => {
          const chunks = allChunks(segments, budget, rule)
          expect(joined(chunks)).toEqual(segments.map(({ text, start, end }) => ({ text, start, end })))
          for (const chunk of chunks) {
            const size =
              rule === jsonRule
                ? JSON.stringify(chunk.pieces).length
                : JSON.stringify(chunk.pieces.map((piece) => piece.text).join("\n")).length
            expect(size).toBeLessThanOrEqual(budget + 2)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("join to the whole transcript, each within its budget, always progressing (property)", () => {
    fc.assert(
      fc.property(
        fc.array(segmentArb, { maxLength: 60 }),
        fc.integer({ min: 500, max: 3_000 }),
        (segments, budget) => {
          const chunks = allChunks(segments, budget)
          expect(joined(chunks)).toEqual(segments.map(({ text, start, end }) => ({ text, start, end })))
          for (const chunk of chunks) {
            expect(cost(chunk)).toBeLessThanOrEqual(budget)
            if (Option.isSome(chunk.next)) expect(chunk.pieces.length).toBeGreaterThan(0)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("split a segment longer than the budget at a space, never inside a surrogate pair", () => {
    const long = `${"word ".repeat(300)}${"😀".repeat(400)}`
    const chunks = allChunks([{ text: long, start: 1_000, end: 90_000 }], 600)
    expect(chunks.length).toBeGreaterThan(2)
    expect(joined(chunks)[0]?.text).toBe(long)
    for (const chunk of chunks) {
      for (const piece of chunk.pieces) {
        expect(piece.start).toBe(1_000)
        expect(piece.end).toBe(90_000)
        // No lone surrogate at either end of a piece.
        expect(piece.text).toBe(Buffer.from(piece.text, "utf8").toString("utf8"))
      }
    }
    expect(chunks[0]?.pieces[0]?.text.endsWith(" ")).toBe(true)
  })

  it("start the next chunk with a segment that fits a chunk of its own", () => {
    const segments = [
      { text: "a".repeat(300), start: 0, end: 1 },
      { text: "b".repeat(300), start: 1, end: 2 }
    ]
    const first = chunkAt(segments, start, 600)
    expect(first.pieces.map((p) => p.text)).toEqual(["a".repeat(300)])
    expect(first.next).toEqual(Option.some({ segment: 1, offset: 0 }))
  })

  it("cut at the room left, not before", () => {
    expect(cutPoint("abcdef ghij", 8)).toBe(7)
    expect(cutPoint("abcdefghij", 4)).toBe(4)
    expect(cutPoint("a😀b", 2)).toBe(1)
  })

  it("carry their position in a cursor naming the transcript", () => {
    const transcript = Ids.TranscriptId.make("3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
    const cursor = encodeCursor({ transcript, position: { segment: 12, offset: 34 } })
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(decodeCursor(cursor)).toEqual(Option.some({ transcript, position: { segment: 12, offset: 34 } }))
    expect(decodeCursor("not a cursor")).toEqual(Option.none())
    expect(decodeCursor(Buffer.from('{"t":"x","s":1,"o":0}').toString("base64url"))).toEqual(Option.none())
    const segments = [{ text: "hello", start: 0, end: 1 }]
    expect(within(segments, { segment: 0, offset: 4 })).toBe(true)
    expect(within(segments, { segment: 0, offset: 5 })).toBe(false)
    expect(within(segments, { segment: 1, offset: 0 })).toBe(false)
  })
})
