/**
 * From what `pocketsphinx_continuous -time yes` prints to the words and segments of a
 * recognition: pure functions, tested without the engine.
 *
 * For each utterance the recogniser prints its hypothesis on one line, then one line per token:
 * `word start end confidence`, the times in seconds (3 decimals, absolute in the file), the end
 * being the start of the token's last 10 ms frame. Tokens include silences and fillers (`<s>`,
 * `</s>`, `<sil>`, `[NOISE]`, `[SPEECH]`), which are dropped, and alternate pronunciations marked
 * `word(2)`, which are written as the word.
 */
import { Transcript } from "@verbatim/domain"

/** A word as the recogniser gives it: lowercase, times in whole ms, end exclusive. */
export interface HeardWord {
  readonly text: string
  readonly start: number
  readonly end: number
}

/** One frame of the recogniser (`-frate 100`): what a token's printed end lacks. */
export const frameMs = 10

const tokenLine = /^(\S+) (\d+\.\d+) (\d+\.\d+) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i

/** Silence, sentence marks and noise the model writes as words. */
export const isFiller = (token: string): boolean =>
  /^<.*>$/.test(token) || /^\[.*\]$/.test(token) || /^\+\+.*\+\+$/.test(token)

/**
 * The words of the recogniser's output, in order, with whole-ms times inside
 * `[0, durationMs]`. Hypothesis lines and anything else that is not a token line are skipped.
 */
export const parseWordTimes = (stdout: string, durationMs: number): ReadonlyArray<HeardWord> => {
  const words: Array<HeardWord> = []
  for (const line of stdout.split(/\r?\n/)) {
    const match = tokenLine.exec(line.trim())
    if (match === null) continue
    const [, token = "", from = "0", to = "0"] = match
    if (isFiller(token)) continue
    const text = token.replace(/\(\d+\)$/, "")
    if (text.length === 0) continue
    const start = Math.min(durationMs, Math.max(0, Math.round(Number(from) * 1000)))
    const end = Math.min(durationMs, Math.max(start, Math.round(Number(to) * 1000) + frameMs))
    const previous = words[words.length - 1]
    // Utterances come in order; a token that would start before the one above is pulled forward.
    const ordered = previous !== undefined && start < previous.start ? previous.start : start
    words.push({ text, start: ordered, end: Math.max(ordered, end) })
  }
  return words
}

/**
 * Splits words into segments: a new one starts after a silence of at least `pauseMs` between two
 * words, or before a segment would grow longer than `maxSegmentMs`.
 */
export const splitAtPauses = <W extends HeardWord>(
  words: ReadonlyArray<W>,
  pauseMs: number,
  maxSegmentMs: number
): ReadonlyArray<ReadonlyArray<W>> => {
  const segments: Array<Array<W>> = []
  let current: Array<W> = []
  for (const word of words) {
    const first = current[0]
    const last = current[current.length - 1]
    if (
      first !== undefined &&
      last !== undefined &&
      (word.start - last.end >= pauseMs || word.end - first.start > maxSegmentMs)
    ) {
      segments.push(current)
      current = []
    }
    current.push(word)
  }
  if (current.length > 0) segments.push(current)
  return segments
}

/** The filler words the recogniser's dictionary holds, removed when `fillerWords` is false. */
export const fillerWords: ReadonlySet<string> = new Set(["uh", "um", "ah", "er", "hmm", "mm"])

/**
 * Writes recognised key terms as the request spells them: each run of words that matches a key
 * term (ignoring case) takes the term's words.
 */
export const applyKeyTerms = <W extends HeardWord>(
  words: ReadonlyArray<W>,
  keyTerms: ReadonlyArray<string>
): ReadonlyArray<W> => {
  const terms = keyTerms
    .map((term) => term.trim().split(/\s+/))
    .filter((parts) => parts.length > 0)
    // Longer terms first, so "New York City" wins over "New York".
    .sort((a, b) => b.length - a.length)
  if (terms.length === 0) return words
  const out = [...words]
  for (let i = 0; i < out.length; i++) {
    for (const parts of terms) {
      const fits = parts.every((part, k) => out[i + k]?.text.toLowerCase() === part.toLowerCase())
      if (!fits) continue
      parts.forEach((part, k) => {
        const word = out[i + k]
        if (word !== undefined) out[i + k] = { ...word, text: part }
      })
      i += parts.length - 1
      break
    }
  }
  return out
}

export interface Formatting {
  /** A full stop at the end of each segment. */
  readonly autoPunctuation: boolean
  /** A capital at the start of each segment and for the pronoun "I". */
  readonly textFormatting: boolean
  readonly fillerWords: boolean
  readonly keyTerms: ReadonlyArray<string>
  readonly pauseMs: number
  readonly maxSegmentMs: number
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

/** The pronoun and its contractions: i, i'm, i'll, i've, i'd. */
const pronoun = /^i('(m|ll|ve|d))?$/

export interface Built {
  readonly text: string
  readonly segments: ReadonlyArray<Transcript.Segment>
  readonly words: ReadonlyArray<Transcript.Word>
}

/**
 * The segments, words and text of what was heard, formatted as the options say (see `options.ts`).
 * The text is the segments' texts joined with spaces; each segment's text is its words joined.
 */
export const build = (heard: ReadonlyArray<HeardWord>, formatting: Formatting): Built => {
  const kept = formatting.fillerWords ? heard : heard.filter((w) => !fillerWords.has(w.text.toLowerCase()))
  const termed = applyKeyTerms(kept, formatting.keyTerms)
  const segments = splitAtPauses(termed, formatting.pauseMs, formatting.maxSegmentMs).map((group) => {
    const words = group.map((w, i) => {
      let text = w.text
      if (formatting.textFormatting) {
        if (pronoun.test(text)) text = capitalise(text)
        if (i === 0) text = capitalise(text)
      }
      if (formatting.autoPunctuation && i === group.length - 1 && !/[.!?]$/.test(text)) text = `${text}.`
      return new Transcript.Word({ text, start: w.start, end: w.end })
    })
    const first = words[0]
    const last = words[words.length - 1]
    return new Transcript.Segment({
      text: words.map((w) => w.text).join(" "),
      start: first?.start ?? 0,
      end: last?.end ?? 0,
      words
    })
  })
  return {
    text: segments.map((s) => s.text).join(" "),
    segments,
    words: segments.flatMap((s) => s.words ?? [])
  }
}

/**
 * The number of bytes of sound in a WAV file, from its first bytes: the size of its `data` chunk
 * (capped by what the file holds), or undefined when the bytes are not a PCM WAV.
 */
export const wavDataBytes = (head: Uint8Array, fileSize: number): number | undefined => {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  const tag = (at: number) => String.fromCharCode(...head.subarray(at, at + 4))
  if (head.byteLength < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") return undefined
  let at = 12
  while (at + 8 <= head.byteLength) {
    const size = view.getUint32(at + 4, true)
    if (tag(at) === "data") return Math.max(0, Math.min(size, fileSize - (at + 8)))
    at += 8 + size + (size % 2)
  }
  return undefined
}

/** 16 kHz, mono, 16 bits: bytes of sound per millisecond. */
export const bytesPerMs = 32
