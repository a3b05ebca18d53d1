import { describe, expect, it } from "@effect/vitest"
import { openingSnippet, searchSnippets, searchWords, snippetLength } from "../src/snippets.js"

const segments = [
  { text: "Welcome to the talk.", start: 0, end: 2_000 },
  { text: "Today we talk about\ndocumentation.", start: 2_000, end: 5_000 },
  { text: "Good docs are documented decisions.", start: 5_000, end: 9_000 },
  { text: "Thanks for listening.", start: 60_000, end: 62_000 }
]

describe("snippets", () => {
  it("take the words a search looks for, without exclusions and operators", () => {
    expect(searchWords('"good documentation" or -video Tests')).toEqual(["good", "documentation", "tests"])
  })

  it("find the passages where a search matches, stemmed, with their times", () => {
    const found = searchSnippets(segments, "documentation", 3)
    expect(found).toHaveLength(1)
    expect(found[0]).toEqual({
      start: 0,
      end: 62_000,
      text: "Welcome to the talk. Today we talk about documentation. Good docs are documented decisions. Thanks for listening."
    })
    expect(searchSnippets(segments, "thanks", 3)[0]?.start).toBe(0)
    expect(searchSnippets(segments, "nowhere", 3)).toEqual([])
  })

  it("cut long passages around the match", () => {
    const long = [{ text: `${"filler ".repeat(100)}needle ${"filler ".repeat(100)}`, start: 7, end: 8 }]
    const [snippet] = searchSnippets(long, "needle", 1)
    expect(snippet?.text).toContain("needle")
    expect(snippet?.text.length).toBeLessThanOrEqual(snippetLength + 2)
    expect(snippet?.text.startsWith("…")).toBe(true)
  })

  it("show how a transcript opens", () => {
    expect(openingSnippet([])).toEqual([])
    expect(openingSnippet(segments)[0]?.start).toBe(0)
    expect(openingSnippet(segments)[0]?.text).toContain("Welcome to the talk.")
  })
})
