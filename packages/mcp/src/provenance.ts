/**
 * How a transcript names what it is, in every text an assistant reads: its language and
 * source kind, and for a machine translation the language it was made from, so a translation is
 * never taken for the original.
 */

/** The fields of a transcript that say what it is. */
export interface Provenance {
  readonly language: string
  readonly source_kind: string
  readonly translated_from: string | null
}

/** `es, machine translation of en (manual)` for a translation; `en, manual` for an original. */
export const provenance = (transcript: Provenance): string =>
  transcript.translated_from === null
    ? `${transcript.language}, ${transcript.source_kind}`
    : `${transcript.language}, machine translation of ${transcript.translated_from} (${transcript.source_kind})`
