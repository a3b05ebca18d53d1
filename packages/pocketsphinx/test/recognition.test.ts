import { describe, expect, it } from "vitest"
import { build, parseWordTimes, splitAtPauses, wavDataBytes } from "../src/recognition.js"

/** What `pocketsphinx_continuous -time yes` printed for two utterances (trimmed). */
const printed = `welcome to verbatim this is
<s> 0.000 0.170 0.999900
welcome 0.180 0.600 0.969084
to(2) 0.610 0.720 0.846606
verbatim 0.730 1.330 0.906095
<sil> 1.340 1.590 0.966374
[NOISE] 1.600 1.730 0.953319
this 1.740 1.990 0.571743
is 2.000 2.130 0.943644
</s> 2.140 2.200 1.000000
um close the door
<s> 6.790 7.100 1.000000
um 7.110 7.300 0.950463
close(2) 7.310 7.520 0.565488
the 7.530 7.630 0.022130
door 7.640 7.990 1.0e-05
</s> 8.000 8.100 1.000000
`

const plain = {
  autoPunctuation: false,
  textFormatting: false,
  fillerWords: true,
  keyTerms: [],
  pauseMs: 500,
  maxSegmentMs: 15_000
}

describe("parseWordTimes", () => {
  it("keeps the words with whole-ms times (end after the last frame), drops silences and noise, strips (2)", () => {
    expect(parseWordTimes(printed, 9000)).toEqual([
      { text: "welcome", start: 180, end: 610 },
      { text: "to", start: 610, end: 730 },
      { text: "verbatim", start: 730, end: 1340 },
      { text: "this", start: 1740, end: 2000 },
      { text: "is", start: 2000, end: 2140 },
      { text: "um", start: 7110, end: 7310 },
      { text: "close", start: 7310, end: 7530 },
      { text: "the", start: 7530, end: 7640 },
      { text: "door", start: 7640, end: 8000 }
    ])
  })

  it("keeps every time inside the audio", () => {
    const words = parseWordTimes("door 7.640 7.990 0.5\nlate 8.500 9.000 0.5\n", 7900)
    expect(words).toEqual([
      { text: "door", start: 7640, end: 7900 },
      { text: "late", start: 7900, end: 7900 }
    ])
  })

  it("reads nothing from no output or messages", () => {
    expect(parseWordTimes("", 1000)).toEqual([])
    expect(parseWordTimes("INFO: continuous.c(307): something 1.000 2.000 3\nhello world\n", 1000)).toEqual(
      []
    )
  })
})

describe("splitAtPauses", () => {
  const w = (start: number, end: number) => ({ text: "w", start, end })

  it("starts a segment after a pause of at least pauseMs", () => {
    const words = [w(0, 100), w(100, 200), w(700, 800), w(1299, 1400)]
    expect(splitAtPauses(words, 500, 15_000).map((s) => s.length)).toEqual([2, 2])
  })

  it("cuts before a segment grows longer than maxSegmentMs", () => {
    const words = Array.from({ length: 10 }, (_, i) => w(i * 400, i * 400 + 400))
    const segments = splitAtPauses(words, 500, 1000)
    expect(segments.map((s) => s.length)).toEqual([2, 2, 2, 2, 2])
    for (const s of segments) expect((s.at(-1)?.end ?? 0) - (s[0]?.start ?? 0)).toBeLessThanOrEqual(1000)
  })

  it("gives nothing for no words", () => {
    expect(splitAtPauses([], 500, 1000)).toEqual([])
  })
})

describe("build", () => {
  const heard = parseWordTimes(printed, 9000)

  it("splits at the pause, each segment with its words; the text is the segments'", () => {
    const built = build(heard, plain)
    expect(built.segments.map((s) => [s.text, s.start, s.end])).toEqual([
      ["welcome to verbatim this is", 180, 2140],
      ["um close the door", 7110, 8000]
    ])
    expect(built.text).toBe("welcome to verbatim this is um close the door")
    expect(built.words.map((w) => w.text)).toEqual(built.segments.flatMap((s) => s.words?.map((w) => w.text)))
  })

  it("autoPunctuation ends each segment with a full stop; textFormatting capitalises it and I", () => {
    const built = build(
      [...heard, { text: "i'm", start: 8100, end: 8200 }, { text: "i", start: 8200, end: 8300 }],
      {
        ...plain,
        autoPunctuation: true,
        textFormatting: true
      }
    )
    expect(built.segments.map((s) => s.text)).toEqual([
      "Welcome to verbatim this is.",
      "Um close the door I'm I."
    ])
  })

  it("fillerWords false removes the fillers", () => {
    expect(build(heard, { ...plain, fillerWords: false }).segments[1]?.text).toBe("close the door")
  })

  it("keyTerms are written as the request spells them", () => {
    const built = build(heard, { ...plain, keyTerms: ["Verbatim", "Close The Door", "absent term"] })
    expect(built.text).toBe("welcome to Verbatim this is um Close The Door")
  })

  it("an abbreviation that ends with a full stop gets no second one", () => {
    expect(build([{ text: "a.m.", start: 0, end: 100 }], { ...plain, autoPunctuation: true }).text).toBe(
      "a.m."
    )
  })
})

describe("wavDataBytes", () => {
  const header = (dataSize: number, extra: Uint8Array = new Uint8Array()) => {
    const bytes = new Uint8Array(44 + extra.length)
    const view = new DataView(bytes.buffer)
    bytes.set(new TextEncoder().encode("RIFF"), 0)
    bytes.set(new TextEncoder().encode("WAVEfmt "), 8)
    view.setUint32(16, 16, true)
    bytes.set(extra, 36)
    bytes.set(new TextEncoder().encode("data"), 36 + extra.length)
    view.setUint32(40 + extra.length, dataSize, true)
    return bytes
  }

  it("reads the data chunk's size, after other chunks, capped by the file", () => {
    expect(wavDataBytes(header(32_000), 44 + 32_000)).toBe(32_000)
    const list = new Uint8Array(12)
    list.set(new TextEncoder().encode("LIST"), 0)
    new DataView(list.buffer).setUint32(4, 4, true)
    expect(wavDataBytes(header(3200, list), 56 + 3200)).toBe(3200)
    expect(wavDataBytes(header(0xffffffff), 44 + 640)).toBe(640)
  })

  it("is undefined for bytes that are not a WAV", () => {
    expect(wavDataBytes(new TextEncoder().encode("not a wav file at all, really"), 29)).toBeUndefined()
  })
})
