/**
 * Caption bodies as the timedtext URL of a track answers them, parsed into segments in integer
 * milliseconds. The format is recognised from the body itself, whatever `fmt` asked for:
 *
 * - json3: `{"events":[{"tStartMs","dDurationMs","segs":[{"utf8"}]}]}`;
 * - srv3: `<timedtext format="3"><body><p t="ms" d="ms">text<s>word</s></p>`;
 * - the legacy `<transcript><text start="s" dur="s">` (HTML escaped inside XML).
 *
 * Entities are decoded, markup and line breaks removed, empty cues dropped, and the segments sorted
 * by start. Auto-generated captions roll: each cue stays on screen while the next is written, so
 * their ends are cut at the next cue's start (never before their own start). An empty body is not
 * an empty transcript: YouTube answers empty when it wants a proof-of-origin token.
 */
import { Transcript } from "@verbatim/domain"
import { Either, Schema } from "effect"
import { decodeEntities, plainText } from "./text.js"

export type CaptionFormat = "json3" | "srv3" | "legacy"

/** Why a body could not be read as captions. */
export type CaptionBodyProblem =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Unreadable"; readonly reason: string }

interface Cue {
  readonly text: string
  readonly start: number
  readonly end: number
}

const ms = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0)

const Json3 = Schema.Struct({
  events: Schema.optionalWith(
    Schema.Array(
      Schema.Struct({
        tStartMs: Schema.optional(Schema.Number),
        dDurationMs: Schema.optional(Schema.Number),
        segs: Schema.optional(Schema.Array(Schema.Struct({ utf8: Schema.optional(Schema.String) })))
      })
    ),
    { default: () => [] }
  )
})

const decodeJson3 = Schema.decodeUnknownEither(Schema.parseJson(Json3))

const json3Cues = (body: string): Either.Either<ReadonlyArray<Cue>, string> =>
  Either.mapBoth(decodeJson3(body), {
    onLeft: (error) => `not json3 captions: ${error.message.split("\n")[0] ?? ""}`,
    onRight: ({ events }) =>
      events.map((event) => {
        const start = ms(event.tStartMs ?? 0)
        return {
          text: plainText((event.segs ?? []).map((s) => s.utf8 ?? "").join("")),
          start,
          end: start + ms(event.dDurationMs ?? 0)
        }
      })
  })

const attribute = (attributes: string, name: string): string | undefined => {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attributes)
  return match === null ? undefined : (match[1] ?? match[2])
}

/** Every `<name attributes>content</name>` (or self-closed) element of `body`, in order. */
const elements = (body: string, name: string): ReadonlyArray<{ attributes: string; content: string }> => {
  const pattern = new RegExp(`<${name}((?:\\s[^>]*?)?)(?:/>|>([\\s\\S]*?)</${name}\\s*>)`, "g")
  return Array.from(body.matchAll(pattern), (m) => ({ attributes: m[1] ?? "", content: m[2] ?? "" }))
}

const seconds = (value: string | undefined): number => {
  const n = Number(value ?? "0")
  return Number.isFinite(n) ? n * 1000 : 0
}

const srv3Cues = (body: string): ReadonlyArray<Cue> =>
  elements(body, "p").map(({ attributes, content }) => {
    const start = ms(Number(attribute(attributes, "t") ?? "0"))
    return { text: plainText(content), start, end: start + ms(Number(attribute(attributes, "d") ?? "0")) }
  })

const legacyCues = (body: string): ReadonlyArray<Cue> =>
  elements(body, "text").map(({ attributes, content }) => {
    const start = ms(seconds(attribute(attributes, "start")))
    // Legacy bodies are HTML escaped inside XML: decode once for the XML, then read the HTML.
    return {
      text: plainText(decodeEntities(content)),
      start,
      end: start + ms(seconds(attribute(attributes, "dur")))
    }
  })

/** The format of a caption body, recognised from its first characters. */
export const formatOf = (body: string): CaptionFormat | null => {
  const head = body.trimStart().slice(0, 4096)
  if (head.startsWith("{")) return "json3"
  if (/<timedtext\b/.test(head)) return "srv3"
  if (/<transcript\b/.test(head)) return "legacy"
  return null
}

/**
 * Cuts each cue's end at the next later start (cues sorted by start), for rolling auto captions (cues that start
 * together keep their ends; an end never falls before its own start).
 */
export const cutOverlaps = (cues: ReadonlyArray<Cue>): ReadonlyArray<Cue> =>
  cues.map((cue, i) => {
    let j = i + 1
    while (j < cues.length && (cues[j]?.start ?? 0) <= cue.start) j++
    const next = cues[j]
    return next !== undefined && next.start < cue.end ? { ...cue, end: next.start } : cue
  })

/**
 * Parses a caption body into segments, sorted by start. `rolling` cuts overlaps (auto captions).
 * Fails with `Empty` for a blank body and `Unreadable` for one in no known format.
 */
export const parseCaptions = (
  body: string,
  options: { readonly rolling: boolean }
): Either.Either<ReadonlyArray<Transcript.Segment>, CaptionBodyProblem> => {
  if (body.trim().length === 0) return Either.left({ _tag: "Empty" })
  const format = formatOf(body)
  const cues: Either.Either<ReadonlyArray<Cue>, string> = format === "json3"
    ? json3Cues(body)
    : format === "srv3"
      ? Either.right(srv3Cues(body))
      : format === "legacy"
        ? Either.right(legacyCues(body))
        : Either.left(`not a caption body (starts with ${JSON.stringify(body.trimStart().slice(0, 40))})`)
  return Either.mapBoth(cues, {
    onLeft: (reason): CaptionBodyProblem => ({ _tag: "Unreadable", reason }),
    onRight: (all) => {
      const sorted = all.filter((c) => c.text.length > 0).sort((a, b) => a.start - b.start)
      return (options.rolling ? cutOverlaps(sorted) : sorted).map(
        (c) => new Transcript.Segment({ text: c.text, start: c.start, end: c.end }, true)
      )
    }
  })
}
