/**
 * Which caption track answers a request (DESIGN.md decision 9).
 *
 * In the requested language a human track beats an auto one. When the requested language has no
 * usable track, fall back to the video's original language, then English, then the first track,
 * human before auto at each step. `human_captions_only` never takes an auto track; the ASR-only
 * mode takes no track at all. Languages match on their primary subtag (`en-GB` answers `en`),
 * an exact match first.
 */
import { Array as Arr, Option } from "effect"
import { type LanguageCode, primary } from "../language.js"
import type { Mode } from "../mode/mode.js"
import type { CaptionTrack, TrackKind } from "./track.js"

export interface TrackRequest {
  readonly mode: Mode
  /** The preferred language, when the request named one. */
  readonly language?: LanguageCode | undefined
  /** The video's original (spoken) language, when the platform knows it. */
  readonly originalLanguage?: LanguageCode | null | undefined
}

/** The track kinds a mode accepts, best first. */
export const acceptedKinds = (mode: Mode): ReadonlyArray<TrackKind> => {
  switch (mode) {
    case "human_captions_only":
      return ["manual"]
    case "speech_to_text_only":
      return []
    case "auto":
    case "captions_only":
      return ["manual", "auto"]
  }
}

const fallbackEnglish = "en" as LanguageCode

const inLanguage = (
  tracks: ReadonlyArray<CaptionTrack>,
  language: LanguageCode,
  kinds: ReadonlyArray<TrackKind>
): Option.Option<CaptionTrack> => {
  const exact = (t: CaptionTrack) => t.language.toLowerCase() === language.toLowerCase()
  const loose = (t: CaptionTrack) => primary(t.language).toLowerCase() === primary(language).toLowerCase()
  for (const kind of kinds) {
    const found = Arr.findFirst(tracks, (t) => t.kind === kind && exact(t)).pipe(
      Option.orElse(() => Arr.findFirst(tracks, (t) => t.kind === kind && loose(t)))
    )
    if (Option.isSome(found)) return found
  }
  return Option.none()
}

/** The track to serve, or none when the mode accepts none of the video's tracks. */
export const chooseTrack = (
  tracks: ReadonlyArray<CaptionTrack>,
  request: TrackRequest
): Option.Option<CaptionTrack> => {
  const kinds = acceptedKinds(request.mode)
  if (kinds.length === 0) return Option.none()
  const preferences = [request.language, request.originalLanguage ?? undefined, fallbackEnglish].filter(
    (l): l is LanguageCode => l !== undefined
  )
  for (const language of preferences) {
    const found = inLanguage(tracks, language, kinds)
    if (Option.isSome(found)) return found
  }
  for (const kind of kinds) {
    const first = Arr.findFirst(tracks, (t) => t.kind === kind)
    if (Option.isSome(first)) return first
  }
  return Option.none()
}
