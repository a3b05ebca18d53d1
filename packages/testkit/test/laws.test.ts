import { describe, expect, it } from "@effect/vitest"
import type { Ids } from "@verbatim/domain"
import { Transcript } from "@verbatim/domain"
import { entryIssues, segmentIssues } from "../src/index.js"

const segment = (text: string, start: number, end: number) =>
  new Transcript.Segment({ text, start, end }, true)

describe("the contract's segment laws", () => {
  it("accept sorted, whole-ms, non-empty, plain-text segments, overlaps included", () => {
    expect(
      segmentIssues([segment("a", 0, 1000), segment("b & c", 500, 1500), segment("d", 500, 500)])
    ).toEqual([])
  })

  it("name every broken law with its index", () => {
    expect(
      segmentIssues([
        segment("one", 1000, 900),
        segment("two", 500.5, 600),
        segment("  ", 700, 800),
        segment("Tom &amp; Jerry", 800, 900),
        segment("<i>not</i>", 900, 1000)
      ])
    ).toEqual([
      "[0] ends (900) before it starts (1000)",
      "[1] start 500.5 is not whole ms",
      "[1] starts before the segment above",
      "[2] is empty",
      "[3] keeps an HTML entity: Tom &amp; Jerry",
      "[4] keeps markup: <i>not</i>"
    ])
  })

  it("check the entries of a list page", () => {
    const id = (s: string) => s as Ids.VideoId
    expect(
      entryIssues([{ id: id("GJLlxj_dtq8"), title: "t", durationSeconds: 3, publishedAt: null }])
    ).toEqual([])
    expect(
      entryIssues([
        { id: id("short"), title: " ", durationSeconds: 1.5, publishedAt: null },
        { id: id("GJLlxj_dtq8"), title: null, durationSeconds: null, publishedAt: null }
      ])
    ).toEqual([
      "[0] id short is not a video id",
      "[0] duration 1.5 is not whole seconds",
      "[0] has a blank title"
    ])
  })
})
