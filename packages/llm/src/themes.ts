/**
 * The `ThemesEngine` port on the model (`Llm`). The model sees the transcript as numbered segments
 * (`[{ "i", "text" }]`; a transcript longer than `maxInputCharacters` has each segment's text cut in
 * proportion, so every index stays) and answers a compact structure (`ModelThemes`) that names
 * segments by index only: the tldr, themes with keywords and the segments that mention them, and
 * moments as ranges of segments. The engine then builds the response from the transcript itself:
 * ids, colors, shares and counts, times (a mention's start is its segment's start; a moment runs
 * from its first segment's start to its last segment's end) and quotes (the moment's segments'
 * text), so times and quotes are never the model's invention.
 *
 * A reply that does not decode is retried by `Llm`; a reply that decodes but does not fit (a
 * segment index outside the transcript, a moment of a theme that does not exist, a range that
 * runs backwards, no theme at all for a transcript with text) is asked again up to `retries`
 * times; what still fails is a `ThemesEngineError` (the use case refunds the unlock).
 */
import {
  type ThemesDetection,
  ThemesEngine,
  ThemesEngineError,
  type ThemesInput,
  themeColor
} from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect, Layer, Schema } from "effect"
import { Llm } from "./model.js"

/** What the model answers. */
export const ModelThemes = Schema.Struct({
  tldr: Schema.String,
  themes: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      summary: Schema.String,
      keywords: Schema.Array(
        Schema.Struct({
          term: Schema.String,
          aliases: Schema.Array(Schema.String),
          definition: Schema.String,
          segments: Schema.Array(Schema.Int)
        })
      )
    })
  ),
  moments: Schema.Array(
    Schema.Struct({
      theme: Schema.Int,
      label: Schema.String,
      segment_start: Schema.Int,
      segment_end: Schema.Int
    })
  )
})
export type ModelThemes = typeof ModelThemes.Type

export const systemPrompt = [
  'You find the themes of a video transcript. The user message is a JSON array of its segments, {"i": index, "text": text}, in order.',
  'Answer {"tldr", "themes", "moments"}: tldr is two or three sentences on what the video says; themes (2 to 6) each have a short name, a one-sentence summary and 2 to 6 keywords;',
  'a keyword has its term (as said in the transcript), aliases (other forms used), a one-sentence definition, and "segments": the indexes i of every segment that mentions it;',
  'moments (one or two per theme) quote the transcript: "theme" is the index of its theme in your themes array, "label" a few words, "segment_start" and "segment_end" the first and last segment index of the passage.',
  "Use only indexes that appear in the input. Write in the transcript's language."
].join("\n")

/** The user message: the segments numbered, each cut in proportion when the whole exceeds `budget`. */
export const transcriptPrompt = (input: ThemesInput, budget: number): string => {
  const total = input.segments.reduce((sum, s) => sum + s.text.length, 0)
  const ratio = total <= budget ? 1 : budget / total
  return JSON.stringify(
    input.segments.map((segment, i) => {
      const keep = Math.max(24, Math.floor(segment.text.length * ratio))
      const text = segment.text.length <= keep ? segment.text : `${segment.text.slice(0, keep).trimEnd()}…`
      return { i, text }
    })
  )
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-|-$/g, "")

/** Why a reply does not fit the transcript (none: it fits). */
export const misfit = (reply: ModelThemes, segmentCount: number): string | undefined => {
  const inside = (i: number) => i >= 0 && i < segmentCount
  if (segmentCount > 0 && reply.themes.length === 0) return "no theme"
  for (const theme of reply.themes) {
    for (const keyword of theme.keywords) {
      const outside = keyword.segments.find((i) => !inside(i))
      if (outside !== undefined)
        return `keyword "${keyword.term}" names segment ${outside}, which does not exist`
    }
  }
  for (const moment of reply.moments) {
    if (moment.theme < 0 || moment.theme >= reply.themes.length) return `a moment names theme ${moment.theme}`
    if (
      !inside(moment.segment_start) ||
      !inside(moment.segment_end) ||
      moment.segment_start > moment.segment_end
    ) {
      return `a moment spans segments ${moment.segment_start}..${moment.segment_end}`
    }
  }
  return undefined
}

/** The response built from a reply that fits and the transcript. */
export const detection = (reply: ModelThemes, input: ThemesInput): ThemesDetection => {
  const segments = input.segments
  const mentionsOf = (keyword: ModelThemes["themes"][number]["keywords"][number]) =>
    Array.from(new Set(keyword.segments)).sort((a, b) => a - b)
  const counts = reply.themes.map((theme) => theme.keywords.reduce((n, k) => n + mentionsOf(k).length, 0))
  const total = counts.reduce((a, b) => a + b, 0)
  const themeIds = reply.themes.map((theme, t) => `theme-${t + 1}-${slug(theme.name)}`.slice(0, 64))
  const moments = reply.moments.map((moment, m) => {
    const first = segments[moment.segment_start]
    const last = segments[moment.segment_end]
    return new Api.ThemeMoment({
      id: `moment-${m + 1}`,
      theme_id: themeIds[moment.theme] ?? "",
      label: moment.label,
      quote: segments
        .slice(moment.segment_start, moment.segment_end + 1)
        .map((s) => s.text.trim())
        .join(" "),
      color_hex: themeColor(moment.theme)[1],
      start: first?.start ?? 0,
      end: last?.end ?? 0,
      segment_start: moment.segment_start,
      segment_end: moment.segment_end
    })
  })
  const themes = reply.themes.map((theme, t) => {
    const [color, hex] = themeColor(t)
    const id = themeIds[t] ?? ""
    return new Api.Theme({
      id,
      name: theme.name,
      summary: theme.summary,
      color,
      color_hex: hex,
      share: total === 0 ? 0 : Math.min(1, (counts[t] ?? 0) / total),
      mention_count: counts[t] ?? 0,
      moment_count: moments.filter((m) => m.theme_id === id).length,
      keywords: theme.keywords.map((keyword, k) => {
        const mentions = mentionsOf(keyword)
        return new Api.ThemeKeyword({
          id: `keyword-${t + 1}-${k + 1}-${slug(keyword.term)}`.slice(0, 80),
          term: keyword.term,
          aliases: keyword.aliases,
          definition: keyword.definition,
          mention_count: mentions.length,
          mentions: mentions.map(
            (i) => new Api.KeywordMention({ segment_index: i, start: segments[i]?.start ?? 0 })
          )
        })
      })
    })
  })
  return { tldr: reply.tldr, moments, themes }
}

export const make = Effect.gen(function* () {
  const llm = yield* Llm
  const name = `model ${llm.settings.model}`

  const detect = (input: ThemesInput) =>
    Effect.gen(function* () {
      const reply = yield* llm.generateObject({
        name: "Themes",
        schema: ModelThemes,
        system: systemPrompt,
        prompt: transcriptPrompt(input, llm.settings.maxInputCharacters)
      })
      const problem = misfit(reply, input.segments.length)
      if (problem !== undefined)
        return yield* Effect.fail(`the reply does not fit the transcript: ${problem}`)
      return detection(reply, input)
    }).pipe(
      Effect.mapError((error) => (typeof error === "string" ? error : error.reason)),
      Effect.tapError((reason) => Effect.logWarning("themes reply refused", reason)),
      Effect.retry({ times: llm.settings.retries }),
      Effect.mapError(
        (reason) =>
          new ThemesEngineError({
            engine: name,
            reason: `no usable answer after ${llm.settings.retries + 1} attempts: ${reason}`
          })
      ),
      Effect.withSpan("AiThemes.detect", {
        attributes: { "themes.segments": input.segments.length, "llm.model": llm.settings.model },
        captureStackTrace: false
      })
    )

  return ThemesEngine.of({ name, detect })
})

/** The `ThemesEngine` on the model in context. */
export const layer: Layer.Layer<ThemesEngine, never, Llm> = Layer.effect(ThemesEngine, make)
