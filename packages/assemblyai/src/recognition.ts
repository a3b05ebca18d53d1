/**
 * A completed AssemblyAI transcript as a `Recognition`: integer-millisecond times, ordered
 * segments whose words lie inside them, the real duration and the `asr_intelligence` of the
 * features that were asked for.
 *
 * Segments are AssemblyAI's `utterances` when speaker labels or multichannel applied (one segment
 * per speaker turn or channel turn), otherwise its sentences (`GET /v2/transcript/{id}/sentences`,
 * AssemblyAI's own language-aware sentence split). Should neither be there while words are, the
 * words are grouped into sentence-sized segments here (at sentence-final punctuation, a pause of
 * 2 s or 40 words).
 *
 * With custom formatting, AssemblyAI returns the reformatted text (`formatted_text`) and a mapping
 * from each original entity to its new form; the text is the reformatted one and each segment's
 * text gets the mapping applied (an entity split across two segments keeps its original form there).
 * Words stay as spoken.
 */
import { Api, type Language, Transcript } from "@verbatim/domain"
import { Effect, type ParseResult, Schema } from "effect"
import type { TranscriptRequest } from "./request.js"
import type { Transcript as AaiTranscript, LabelResults, TimedText, TranscriptWord } from "./responses.js"

/** A whole, non-negative number of milliseconds. */
export const ms = (n: number): number => (Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0)

const unit = (n: number | null | undefined): number =>
  n === null || n === undefined || !Number.isFinite(n) ? 0 : Math.min(1, Math.max(0, n))

const byStart = <A extends { readonly start: number }>(items: ReadonlyArray<A>): ReadonlyArray<A> =>
  items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => a.item.start - b.item.start || a.index - b.index)
    .map(({ item }) => item)

/** Words with whole-ms times, in order of start, empty ones dropped. */
export const wordsOf = (words: ReadonlyArray<TranscriptWord>): ReadonlyArray<Transcript.Word> =>
  byStart(
    words
      .filter((w) => w.text.trim().length > 0)
      .map((w) => {
        const start = ms(w.start)
        return new Transcript.Word({ text: w.text.trim(), start, end: Math.max(start, ms(w.end)) }, true)
      })
  )

const clampInto = (
  words: ReadonlyArray<Transcript.Word>,
  start: number,
  end: number
): ReadonlyArray<Transcript.Word> =>
  words.map((w) => {
    const s = Math.min(Math.max(w.start, start), end)
    const e = Math.min(Math.max(w.end, s), end)
    return s === w.start && e === w.end ? w : new Transcript.Word({ text: w.text, start: s, end: e }, true)
  })

/** Replaces each original entity of a custom-formatting mapping with its formatted form. */
export const applyMapping = (text: string, mapping: Readonly<Record<string, string>>): string =>
  Object.entries(mapping)
    .filter(([from]) => from.length > 0)
    .sort(([a], [b]) => b.length - a.length)
    .reduce((acc, [from, to]) => acc.split(from).join(to), text)

/** Segments from utterances or sentences: ordered, whole ms, words clamped inside their segment. */
export const segmentsOf = (
  timed: ReadonlyArray<TimedText>,
  mapping: Readonly<Record<string, string>> = {}
): ReadonlyArray<Transcript.Segment> =>
  byStart(timed)
    .filter((t) => t.text.trim().length > 0)
    .map((t) => {
      const words = wordsOf(t.words ?? [])
      const start = ms(Math.min(t.start, words[0]?.start ?? t.start))
      const end = Math.max(start, ms(t.end), words.at(-1)?.end ?? 0)
      return new Transcript.Segment(
        { text: applyMapping(t.text.trim(), mapping), start, end, words: clampInto(words, start, end) },
        true
      )
    })

const sentenceEnd = /[.!?。？！…]["'”’)\]]*$/

/** Words grouped into sentence-sized segments (when AssemblyAI gave no sentences). */
export const groupWords = (
  words: ReadonlyArray<Transcript.Word>,
  mapping: Readonly<Record<string, string>> = {}
): ReadonlyArray<Transcript.Segment> => {
  const groups: Array<Array<Transcript.Word>> = []
  let current: Array<Transcript.Word> = []
  for (const word of words) {
    const previous = current.at(-1)
    if (previous !== undefined && (word.start - previous.end > 2000 || current.length >= 40)) {
      groups.push(current)
      current = []
    }
    current.push(word)
    if (sentenceEnd.test(word.text)) {
      groups.push(current)
      current = []
    }
  }
  if (current.length > 0) groups.push(current)
  return groups.flatMap((group) => {
    const first = group[0]
    if (first === undefined) return []
    const end = Math.max(first.start, ...group.map((w) => w.end))
    return [
      new Transcript.Segment(
        {
          text: applyMapping(group.map((w) => w.text).join(" "), mapping),
          start: first.start,
          end,
          words: group
        },
        true
      )
    ]
  })
}

/** The real duration in ms: AssemblyAI's `audio_duration` (seconds), never before the last word. */
export const durationOf = (
  transcript: AaiTranscript,
  segments: ReadonlyArray<Transcript.Segment>,
  words: ReadonlyArray<Transcript.Word>,
  claimedSeconds: number | null
): number => {
  const reported =
    transcript.audio_duration === null || transcript.audio_duration === undefined
      ? ms((claimedSeconds ?? 0) * 1000)
      : ms(transcript.audio_duration * 1000)
  return Math.max(reported, ...words.map((w) => w.end), ...segments.map((s) => s.end))
}

const labelSummary = (result: LabelResults | null | undefined) => ({
  summary: Object.fromEntries(Object.entries(result?.summary ?? {}).map(([label, n]) => [label, unit(n)])),
  results: result?.results ?? []
})

const sentiments = new Set(["POSITIVE", "NEGATIVE", "NEUTRAL"])

/** Which `asr_intelligence` fields a request asked for. */
export const requestedIntelligence = (body: TranscriptRequest) => ({
  summary: body.summarization === true,
  topics: body.iab_categories === true,
  content_safety: body.content_safety === true,
  sentiment: body.sentiment_analysis === true,
  entities: body.entity_detection === true,
  auto_highlights: body.auto_highlights === true,
  chapters: body.auto_chapters === true
})

/**
 * The `asr_intelligence` of the features the request asked for (each null when AssemblyAI gave
 * nothing for it), or null when it asked for none. Fields of features not asked for are absent.
 */
export const intelligenceOf = (
  body: TranscriptRequest,
  t: AaiTranscript
): Effect.Effect<Api.AsrIntelligence | null, ParseResult.ParseError> => {
  const asked = requestedIntelligence(body)
  if (!Object.values(asked).some(Boolean)) return Effect.succeed(null)
  const plain = {
    ...(asked.summary ? { summary: t.summary?.trim() || null } : {}),
    ...(asked.topics
      ? { topics: t.iab_categories_result ? labelSummary(t.iab_categories_result) : null }
      : {}),
    ...(asked.content_safety
      ? { content_safety: t.content_safety_labels ? labelSummary(t.content_safety_labels) : null }
      : {}),
    ...(asked.sentiment
      ? {
          sentiment:
            t.sentiment_analysis_results?.map((s) => {
              const start = ms(s.start)
              const sentiment = s.sentiment.toUpperCase()
              return {
                text: s.text,
                sentiment: sentiments.has(sentiment) ? sentiment : "NEUTRAL",
                confidence: unit(s.confidence),
                start,
                end: Math.max(start, ms(s.end))
              }
            }) ?? null
        }
      : {}),
    ...(asked.entities
      ? {
          entities:
            t.entities?.map((e) => {
              const start = ms(e.start)
              return { text: e.text, entity_type: e.entity_type, start, end: Math.max(start, ms(e.end)) }
            }) ?? null
        }
      : {}),
    ...(asked.auto_highlights
      ? {
          auto_highlights: t.auto_highlights_result
            ? {
                results: t.auto_highlights_result.results.map((h) => ({
                  text: h.text,
                  count: ms(h.count),
                  rank: unit(h.rank)
                }))
              }
            : null
        }
      : {}),
    ...(asked.chapters
      ? {
          chapters:
            t.chapters?.map((c) => {
              const start = ms(c.start)
              return {
                summary: c.summary,
                headline: c.headline,
                gist: c.gist,
                start,
                end: Math.max(start, ms(c.end))
              }
            }) ?? null
        }
      : {})
  }
  return Schema.decodeUnknown(Api.AsrIntelligence)(plain)
}

/** A translation AssemblyAI made along with the transcript (`translateTo`). */
export interface Translation {
  readonly language: Language.LanguageCode
  readonly text: string
}
