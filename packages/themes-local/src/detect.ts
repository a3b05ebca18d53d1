/**
 * Local theme detection, in four steps over the transcript's segments:
 *
 * 1. Terms: each segment is read with wink-nlp (English lite model). A term is a noun or proper
 *    noun lemma, or a noun phrase (a run of adjectives and nouns ending in a noun, at most three
 *    words), keyed by its lemmas; its surface forms become the keyword's aliases.
 * 2. Passages: consecutive segments are merged into passages of about 30 to 60 words (closed at a
 *    sentence end once 30 words are in). Passages are the contexts of co-occurrence, the candidates
 *    of the tldr and the moments.
 * 3. Themes: the terms found in at least two segments are ranked by how many segments mention them
 *    (phrases count half as much again); the best become keywords. Keywords are clustered greedily
 *    by co-occurrence across passages (Jaccard similarity of the passages they appear in): a
 *    keyword joins the theme it co-occurs with most if that similarity reaches `joinAt`, else it
 *    starts a new theme while there are fewer than `maxThemes`. A theme is named after its two best
 *    keywords; its share is its part of all the themes' mentions.
 * 4. tldr and moments: TextRank (ts-textrank, Sørensen-Dice over content lemmas) ranks the
 *    passages; the tldr is the best two in transcript order. Each theme's moment is the passage
 *    holding most of its mentions (ties: the better ranked).
 *
 * Every mention points at the segment it was found in, with that segment's start; every moment
 * spans whole segments, from the first one's start to the last one's end.
 */
import { type ThemesDetection, type ThemesInput, themeColor } from "@verbatim/core"
import { Api, type Transcript } from "@verbatim/domain"
import type * as TextRank from "ts-textrank"
import type winkNLP from "wink-nlp"

export interface LocalThemesOptions {
  /** Most themes in an answer. */
  readonly maxThemes: number
  /** Most keywords in a theme. */
  readonly maxKeywordsPerTheme: number
  /** Most keywords considered before clustering. */
  readonly maxKeywords: number
  /** Least Jaccard similarity (passages in common) for a keyword to join a theme. */
  readonly joinAt: number
  /** Passages in the tldr. */
  readonly tldrPassages: number
}

export const defaultOptions: LocalThemesOptions = {
  maxThemes: 6,
  maxKeywordsPerTheme: 6,
  maxKeywords: 36,
  joinAt: 0.2,
  tldrPassages: 2
}

const minPassageWords = 30
const maxPassageWords = 60
const maxQuoteChars = 280
const maxPhraseWords = 3

interface Term {
  readonly key: string
  /** Surface forms, most frequent first once counted. */
  readonly forms: Map<string, number>
  /** Indexes of the segments that mention it, ascending. */
  readonly segments: Array<number>
  readonly words: number
}

interface Passage {
  readonly first: number
  readonly last: number
  readonly text: string
  readonly lemmas: ReadonlyArray<string>
}

type Nlp = ReturnType<typeof winkNLP>

/** What a detection runs on: the wink-nlp pipeline and ts-textrank. */
export interface Pipeline {
  readonly nlp: Nlp
  readonly textRank: typeof TextRank
}

/**
 * Loads the wink-nlp pipeline and ts-textrank. The engine's layer (`index.ts`) loads them at its
 * first detection and keeps them: the model is tens of megabytes, so a process that never detects
 * themes never holds it (or imports them).
 */
export const loadPipeline = (): Promise<Pipeline> =>
  Promise.all([import("wink-nlp"), import("wink-eng-lite-web-model"), import("ts-textrank")]).then(
    ([wink, model, textRank]) => ({ nlp: wink.default(model.default), textRank })
  )

const nounish = new Set(["NOUN", "PROPN"])
const phrasePart = new Set(["NOUN", "PROPN", "ADJ"])
const contentPos = new Set(["NOUN", "PROPN", "VERB", "ADJ"])

const wordCount = (text: string) => text.split(/\s+/).filter((w) => w !== "").length

const quoteOf = (text: string): string => {
  const clean = text.replace(/\s+/g, " ").trim()
  if (clean.length <= maxQuoteChars) return clean
  const cut = clean.slice(0, maxQuoteChars)
  const space = cut.lastIndexOf(" ")
  return `${(space > 0 ? cut.slice(0, space) : cut).trimEnd()}…`
}

const titleCase = (term: string) => term.replace(/(^|\s)\p{L}/gu, (c) => c.toUpperCase())

/** The terms and content lemmas of each segment. */
const read = (nlp: Nlp, segments: ReadonlyArray<Transcript.Segment>) => {
  const its = nlp.its
  const terms = new Map<string, Term>()
  const lemmas: Array<Array<string>> = []
  const add = (key: string, form: string, index: number, words: number) => {
    let term = terms.get(key)
    if (term === undefined) {
      term = { key, forms: new Map(), segments: [], words }
      terms.set(key, term)
    }
    term.forms.set(form, (term.forms.get(form) ?? 0) + 1)
    if (term.segments[term.segments.length - 1] !== index) term.segments.push(index)
  }
  for (const [index, segment] of segments.entries()) {
    const tokens = nlp.readDoc(segment.text).tokens()
    const pos = tokens.out(its.pos) as ReadonlyArray<string>
    // wink-nlp's types declare `its.lemma` with the document's signature; it is a token function.
    const lemma = tokens.out(its.lemma as unknown as typeof its.normal) as ReadonlyArray<string>
    const normal = tokens.out(its.normal) as ReadonlyArray<string>
    const stop = tokens.out(its.stopWordFlag) as ReadonlyArray<boolean>
    const type = tokens.out(its.type) as ReadonlyArray<string>
    const usable = (i: number) =>
      type[i] === "word" &&
      stop[i] !== true &&
      (lemma[i] ?? "").length >= 3 &&
      /^\p{L}[\p{L}'-]*$/u.test(lemma[i] ?? "")
    const own: Array<string> = []
    let run: Array<number> = []
    const closeRun = () => {
      // The run ends in a noun: its last `maxPhraseWords` words are a phrase.
      while (run.length > 0 && !nounish.has(pos[run[run.length - 1] as number] ?? "")) run.pop()
      if (run.length >= 2) {
        const words = run.slice(-maxPhraseWords)
        const key = words.map((i) => (lemma[i] ?? "").toLowerCase()).join(" ")
        add(key, words.map((i) => normal[i] ?? "").join(" "), index, words.length)
      }
      run = []
    }
    for (let i = 0; i < pos.length; i++) {
      const p = pos[i] ?? ""
      if (usable(i) && contentPos.has(p)) own.push((lemma[i] ?? "").toLowerCase())
      if (usable(i) && nounish.has(p)) add((lemma[i] ?? "").toLowerCase(), normal[i] ?? "", index, 1)
      if (usable(i) && phrasePart.has(p)) run.push(i)
      else closeRun()
    }
    closeRun()
    lemmas.push(own)
  }
  // A word the tagger took for a proper noun keeps its surface form as its lemma ("Tomatoes" at the
  // start of a sentence): a term whose key is another term's surface form joins that term.
  const formOf = new Map<string, Term>()
  for (const term of terms.values()) {
    for (const form of term.forms.keys()) if (form !== term.key && !formOf.has(form)) formOf.set(form, term)
  }
  for (const term of Array.from(terms.values())) {
    const into = formOf.get(term.key)
    if (into === undefined || into === term || !terms.has(into.key)) continue
    for (const [form, n] of term.forms) into.forms.set(form, (into.forms.get(form) ?? 0) + n)
    const merged = Array.from(new Set([...into.segments, ...term.segments])).sort((a, b) => a - b)
    into.segments.splice(0, into.segments.length, ...merged)
    terms.delete(term.key)
  }
  return { terms, lemmas }
}

/** Consecutive segments merged into passages of about `minPassageWords` to `maxPassageWords`. */
const passagesOf = (
  segments: ReadonlyArray<Transcript.Segment>,
  lemmas: ReadonlyArray<ReadonlyArray<string>>
): Array<Passage> => {
  const passages: Array<Passage> = []
  let first = 0
  let words = 0
  for (const [index, segment] of segments.entries()) {
    words += wordCount(segment.text)
    const last = index === segments.length - 1
    const sentenceEnd = /[.!?…]["')\]]*\s*$/.test(segment.text)
    if (last || words >= maxPassageWords || (words >= minPassageWords && sentenceEnd)) {
      const range = segments.slice(first, index + 1)
      passages.push({
        first,
        last: index,
        text: range.map((s) => s.text.trim()).join(" "),
        lemmas: lemmas.slice(first, index + 1).flat()
      })
      first = index + 1
      words = 0
    }
  }
  return passages
}

/** TextRank scores of the passages (by their position). */
const rank = (passages: ReadonlyArray<Passage>, textRank: typeof TextRank): ReadonlyArray<number> => {
  if (passages.length === 0) return []
  const { AbsoluteSummarizerConfig, NullLogger, Sentence, SorensenDiceSimilarity, Summarizer, Text, Word } =
    textRank
  const sentences = passages.map(
    (p, i) =>
      new Sentence(
        String(i),
        p.lemmas.map((l) => new Word(l)),
        i
      )
  )
  const parser = { parse: () => new Text("", sentences) }
  const config = new AbsoluteSummarizerConfig(
    passages.length,
    new SorensenDiceSimilarity(),
    parser,
    0.85,
    Summarizer.SORT_SCORE
  )
  new Summarizer(config, new NullLogger()).summarize("", "en")
  const scores = Array<number>(passages.length).fill(0)
  for (const s of sentences) scores[s.position] = Number.isFinite(s.score) ? s.score : 0
  return scores
}

const jaccard = (a: ReadonlySet<number>, b: ReadonlySet<number>) => {
  let common = 0
  for (const x of a) if (b.has(x)) common++
  const union = a.size + b.size - common
  return union === 0 ? 0 : common / union
}

/** Detects the themes of a transcript (see the module's description). */
export const detect = (
  input: ThemesInput,
  options: LocalThemesOptions,
  { nlp, textRank }: Pipeline
): ThemesDetection => {
  const segments = input.segments
  const { terms, lemmas } = read(nlp, segments)
  const passages = passagesOf(segments, lemmas)
  const passageOf = new Array<number>(segments.length)
  for (const [p, passage] of passages.entries()) {
    for (let i = passage.first; i <= passage.last; i++) passageOf[i] = p
  }
  const scores = rank(passages, textRank)

  // Keywords: terms mentioned in at least two segments, the most mentioned first.
  const weight = (t: Term) => t.segments.length * (t.words > 1 ? 1.5 : 1)
  const keywords = Array.from(terms.values())
    .filter((t) => t.segments.length >= 2)
    .sort((a, b) => weight(b) - weight(a) || a.key.localeCompare(b.key))
    .slice(0, options.maxKeywords)
  const contexts = new Map<string, Set<number>>(
    keywords.map((k) => [k.key, new Set(k.segments.map((i) => passageOf[i] as number))])
  )

  // Greedy clustering by co-occurrence across passages.
  const clusters: Array<Array<Term>> = []
  for (const keyword of keywords) {
    const mine = contexts.get(keyword.key) as Set<number>
    let best = -1
    let bestScore = 0
    for (const [c, cluster] of clusters.entries()) {
      if (cluster.length >= options.maxKeywordsPerTheme) continue
      const score =
        cluster.reduce((sum, other) => sum + jaccard(mine, contexts.get(other.key) as Set<number>), 0) /
        cluster.length
      if (score > bestScore) {
        best = c
        bestScore = score
      }
    }
    if (best >= 0 && bestScore >= options.joinAt) clusters[best]?.push(keyword)
    else if (clusters.length < options.maxThemes) clusters.push([keyword])
  }

  const totalMentions = clusters.reduce(
    (sum, cluster) => sum + cluster.reduce((n, k) => n + k.segments.length, 0),
    0
  )
  const moments: Array<Api.ThemeMoment> = []
  const themes = clusters.map((cluster, c) => {
    const id = `theme-${c + 1}`
    const [color, hex] = themeColor(c)
    const mentions = cluster.reduce((n, k) => n + k.segments.length, 0)
    // The passage holding most of the theme's mentions (ties: the better ranked, then the earlier).
    const perPassage = new Map<number, number>()
    for (const k of cluster)
      for (const i of k.segments) {
        const p = passageOf[i] as number
        perPassage.set(p, (perPassage.get(p) ?? 0) + 1)
      }
    const [momentPassage] = Array.from(perPassage.entries()).sort(
      ([pa, na], [pb, nb]) => nb - na || (scores[pb] ?? 0) - (scores[pa] ?? 0) || pa - pb
    )[0] as [number, number]
    const passage = passages[momentPassage] as Passage
    const name = cluster
      .slice(0, 2)
      .map((k) => titleCase(k.key))
      .join(" & ")
    moments.push(
      new Api.ThemeMoment({
        id: `moment-${c + 1}`,
        theme_id: id,
        label: titleCase(cluster[0]?.key ?? name),
        quote: quoteOf(passage.text),
        color_hex: hex,
        start: (segments[passage.first] as Transcript.Segment).start,
        end: (segments[passage.last] as Transcript.Segment).end,
        segment_start: passage.first,
        segment_end: passage.last
      })
    )
    const terms = cluster.map((k) => k.key)
    return new Api.Theme({
      id,
      name,
      summary: `${mentions} mentions of ${terms.slice(0, 4).join(", ")}${terms.length > 4 ? " and more" : ""}, across ${perPassage.size} passage${perPassage.size === 1 ? "" : "s"}`,
      color,
      color_hex: hex,
      share: totalMentions === 0 ? 0 : Math.min(1, mentions / totalMentions),
      mention_count: mentions,
      moment_count: 1,
      keywords: cluster.map((k) => {
        const forms = Array.from(k.forms.entries())
          .sort(([fa, a], [fb, b]) => b - a || fa.localeCompare(fb))
          .map(([form]) => form)
        const first = segments[k.segments[0] as number] as Transcript.Segment
        return new Api.ThemeKeyword({
          id: `keyword-${k.key.replace(/[^\p{L}\p{N}]+/gu, "-")}`,
          term: k.key,
          aliases: forms.filter((f) => f !== k.key),
          definition: `As said: "${quoteOf(first.text)}"`,
          mention_count: k.segments.length,
          mentions: k.segments.map(
            (i) =>
              new Api.KeywordMention({ segment_index: i, start: (segments[i] as Transcript.Segment).start })
          )
        })
      })
    })
  })

  const tldr = Array.from(scores.entries())
    .sort(([a, sa], [b, sb]) => sb - sa || a - b)
    .slice(0, options.tldrPassages)
    .map(([p]) => p)
    .sort((a, b) => a - b)
    .map((p) => quoteOf((passages[p] as Passage).text))
    .join(" ")

  return { tldr, moments, themes }
}
