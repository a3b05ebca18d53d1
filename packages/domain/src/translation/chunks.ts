/**
 * Long transcripts are translated in chunks that fit the engine's limit (characters of source
 * text per request) and keep segment boundaries: a chunk carries whole segments, in order, as
 * pieces tagged with their segment's index, and the translated pieces are put back per segment,
 * so every segment keeps its own start and end.
 *
 * A segment longer than the budget by itself is cut into pieces at whitespace (or, for a run of
 * text without any, at the budget), each piece in order; its translated pieces are joined again
 * into that one segment. So every chunk is within the budget, every piece belongs to exactly one
 * segment, and the pieces of a segment joined give back its text exactly.
 *
 * Characters are Unicode code points, as translation is priced (`Pricing.translationCharacters`).
 */
import { translationCharacters } from "../pricing/translation.js"

/** A part of one segment's text: the whole text, or a piece of a segment longer than the budget. */
export interface Piece {
  /** The index of the segment in the transcript. */
  readonly segment: number
  readonly text: string
}

export interface Chunk {
  readonly pieces: ReadonlyArray<Piece>
  /** Code points of the pieces' texts together (at most the budget). */
  readonly characters: number
}

/** The smallest budget chunking accepts: below it, prompts would be mostly overhead. */
export const minimumBudget = 20

const codePoints = (text: string): ReadonlyArray<string> => Array.from(text)

/**
 * A text cut into pieces of at most `budget` code points whose concatenation is the text: cuts
 * fall after whitespace where there is some within the budget, else at the budget.
 */
export const cutText = (text: string, budget: number): ReadonlyArray<string> => {
  const points = codePoints(text)
  if (points.length <= budget) return [text]
  const pieces: Array<string> = []
  let from = 0
  while (from < points.length) {
    if (points.length - from <= budget) {
      pieces.push(points.slice(from).join(""))
      break
    }
    let cut = from + budget
    // the last whitespace within the budget; the cut goes after it
    for (let i = from + budget - 1; i > from; i--) {
      if (/\s/u.test(points[i] ?? "")) {
        cut = i + 1
        break
      }
    }
    pieces.push(points.slice(from, cut).join(""))
    from = cut
  }
  return pieces
}

/**
 * The segments' texts in chunks of at most `budget` code points (at least `minimumBudget`), in
 * order, each segment whole in one chunk unless it alone is longer than the budget.
 */
export const chunkTexts = (texts: ReadonlyArray<string>, budget: number): ReadonlyArray<Chunk> => {
  const limit = Math.max(minimumBudget, Math.floor(budget))
  const chunks: Array<Chunk> = []
  let pieces: Array<Piece> = []
  let characters = 0
  const flush = () => {
    if (pieces.length > 0) chunks.push({ pieces, characters })
    pieces = []
    characters = 0
  }
  texts.forEach((text, segment) => {
    for (const part of cutText(text, limit)) {
      const size = translationCharacters(part)
      if (characters + size > limit) flush()
      pieces.push({ segment, text: part })
      characters += size
    }
  })
  flush()
  return chunks
}

/**
 * The translated texts of `count` segments from translated pieces (in any order): the pieces of
 * each segment, in the order given, joined with a space and trimmed; a segment without pieces is
 * empty.
 */
export const joinPieces = (count: number, pieces: ReadonlyArray<Piece>): ReadonlyArray<string> => {
  const parts: Array<Array<string>> = Array.from({ length: count }, () => [])
  for (const piece of pieces) parts[piece.segment]?.push(piece.text.trim())
  return parts.map((texts) => texts.filter((t) => t.length > 0).join(" "))
}
