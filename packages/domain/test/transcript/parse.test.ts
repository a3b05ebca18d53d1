import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { CaptionParseError } from "../../src/transcript/parse/error.js"
import { parseSrt } from "../../src/transcript/parse/srt.js"
import { parseVtt, vttTextToPlain } from "../../src/transcript/parse/vtt.js"

const errorOf = <A>(result: Either.Either<A, CaptionParseError>) =>
  Either.isLeft(result) ? { line: result.left.line, format: result.left.format } : null

describe("SRT reader", () => {
  it("reads cues with CRLF line ends, a byte order mark and extra blank lines", () => {
    const input =
      "\uFEFF1\r\n00:00:01,000 --> 00:00:02,500\r\nHello\r\nthere\r\n\r\n\r\n2\r\n100:00:00,000 --> 100:00:01,000  \r\n<i>Bye</i>\r\n"
    expect(parseSrt(input)).toEqual(
      Either.right([
        { start: 1000, end: 2500, text: "Hello\nthere" },
        { start: 360_000_000, end: 360_001_000, text: "<i>Bye</i>" }
      ])
    )
    expect(parseSrt("")).toEqual(Either.right([]))
  })

  it("refuses what the format does not allow, naming the line", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["2\n00:00:01,000 --> 00:00:02,000\nx\n", 1],
      ["1\n00:00:01,000 --> 00:00:02,000\nx\n\n3\n00:00:03,000 --> 00:00:04,000\ny\n", 5],
      ["1\n00:00:01.000 --> 00:00:02.000\nx\n", 2],
      ["1\n00:00:01,000 -> 00:00:02,000\nx\n", 2],
      ["1\n00:00:01,000 --> 00:00:02,000 X1:40\nx\n", 2],
      ["1\n00:00:02,000 --> 00:00:02,000\nx\n", 2],
      ["1\n00:00:01,000 --> 00:00:02,000\n\n", 3],
      ["1\n00:00:01,000 --> 00:00:02,000\n", 3],
      ["1\n00:00:01,000 --> 00:00:02,000\nx --> y\n", 3],
      ["1\n", 2]
    ]
    for (const [input, line] of cases) expect(errorOf(parseSrt(input))).toEqual({ line, format: "srt" })
  })
})

describe("WebVTT reader", () => {
  it("reads identifiers, settings, notes, styles, short timestamps, tags and references", () => {
    const input = [
      "WEBVTT - a title",
      "Kind: captions",
      "",
      "STYLE",
      "::cue { color: red }",
      "",
      "NOTE a comment",
      "spanning lines",
      "",
      "intro",
      "00:01.000 --> 00:02.500 align:start position:10%",
      "<v Speaker>Hello</v> &amp; <b>welcome</b> &lt;3 &#x263A; &#9731; &copy;",
      "",
      "01:00:00.000-->01:00:01.000",
      "",
      "NOTE",
      "",
      "01:00:01.000 --> 01:00:02.000",
      "two",
      "lines"
    ].join("\n")
    expect(parseVtt(input)).toEqual(
      Either.right([
        { start: 1000, end: 2500, text: "Hello & welcome <3 \u263a \u2603 &copy;" },
        { start: 3_600_000, end: 3_601_000, text: "" },
        { start: 3_601_000, end: 3_602_000, text: "two\nlines" }
      ])
    )
    expect(parseVtt("WEBVTT")).toEqual(Either.right([]))
  })

  it("decodes references in one pass and leaves unknown or out-of-range ones as written", () => {
    expect(vttTextToPlain("&amp;lt; &#1114112; &foo; & <")).toBe("&lt; &#1114112; &foo; & <")
  })

  it("refuses what the format does not allow, naming the line", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["WEBVTTX\n", 1],
      ["\n\nWEBVTT\n", 1],
      ["WEBVTT\n00:00:01.000 --> 00:00:02.000\nx\n", 2],
      ["WEBVTT\n\n00:00:01,000 --> 00:00:02,000\nx\n", 3],
      ["WEBVTT\n\nid\nx\n", 4],
      ["WEBVTT\n\nid\n", 4],
      ["WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nx\n", 3],
      ["WEBVTT\n\n00:00:02.000 --> 00:00:02.000\nx\n", 3],
      ["WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nx\ny --> z\n", 5],
      ["WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nx\n\nSTYLE\n::cue {}\n", 6],
      ["WEBVTT\n\n0:00:01.000 --> 00:00:02.000\nx\n", 3]
    ]
    for (const [input, line] of cases) expect(errorOf(parseVtt(input))).toEqual({ line, format: "vtt" })
  })

  it("describes the error in its message", () => {
    const result = parseVtt("nope")
    expect(Either.isLeft(result) && result.left).toBeInstanceOf(CaptionParseError)
    expect(Either.isLeft(result) && result.left.message).toBe("VTT line 1: the file must start with WEBVTT")
  })
})
