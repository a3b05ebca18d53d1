/**
 * Languages as AssemblyAI names them, and what it can do in each.
 *
 * AssemblyAI's codes are ISO 639-1 codes in lower case, with three exceptions the API uses
 * (`en_us`, `en_uk`, `en_au` for English variants, `jw` for Javanese, `haw` for Hawaiian). The
 * lists below are the "Supported languages" tables of AssemblyAI's API reference and feature pages
 * (checked March 2026). A feature asked for in a language that is not listed fails the whole
 * transcript at AssemblyAI, so `supports` refuses it up front when the language is known; with
 * `language: auto` nothing is known before the audio is heard, and nothing is refused.
 */
import type { Language } from "@verbatim/domain"

/** `language_code` values of the transcript API (`TranscriptLanguageCode`). */
export const transcriptionLanguages: ReadonlySet<string> = new Set(
  (
    "en en_au en_uk en_us es fr de it pt nl af sq am ar hy as az ba eu be bn bs br bg my ca zh hr cs da " +
    "et fo fi gl ka el gu ht ha haw he hi hu is id ja jw kn kk km ko lo la lv ln lt lb mk mg ms ml mt mi " +
    "mr mn ne no nn oc pa ps fa pl ro ru sa sr sn sd si sk sl so su sw sv tl tg ta tt te th bo tr tk uk " +
    "ur uz vi cy yi yo"
  ).split(" ")
)

const english = ["en", "en_au", "en_uk", "en_us"]
const six = [...english, "es", "fr", "de", "it", "pt"]

/** Target languages of Translation (`speech_understanding.request.translation`). */
export const translationLanguages: ReadonlySet<string> = new Set([
  ...six,
  ...(
    "nl hi ja zh fi ko pl ru tr uk vi af sq am ar hy as az eu be bn bs bg ca hr cs da et gl ka el gu ht " +
    "ha haw he hu is id jw kn kk lo la lv lt lb mk mg ms ml mt mi mr mn ne no pa ps fa ro sr sn sd si sk " +
    "sl so su sw sv tl tg ta te ur uz cy yi yo"
  ).split(" ")
])

/** Languages of the Speech Understanding tasks (custom formatting, speaker identification). */
export const speechUnderstandingLanguages: ReadonlySet<string> = new Set([
  ...six,
  ...(
    "nl hi ja zh fi ko pl ru tr uk vi af sq am ar hy as az ba eu be bn bs br bg ca hr cs da et fo gl ka " +
    "el gu ht ha haw he hu is id jw kn kk lo la lv ln lt lb mk mg ms ml mt mi mr mn ne no nn oc pa ps fa " +
    "ro sa sr sn sd si sk sl so su sw sv tl tg ta tt te tk ur uz cy yi yo"
  ).split(" ")
])

/** Languages of PII redaction (and entity detection). */
export const piiLanguages: ReadonlySet<string> = new Set([
  ...six,
  ...(
    "nl hi ja zh fi ko pl ru tr uk vi af ar be bg my ca hr cs da et ka el he hu is id km lv lt lb ms no " +
    "fa ro sk sl sw sv tl ta"
  ).split(" ")
])

/** Languages of profanity filtering. */
export const profanityLanguages: ReadonlySet<string> = new Set([...six, "nl", "hi", "ja"])

/** Languages of topic detection and content moderation. */
export const sixLanguages: ReadonlySet<string> = new Set(six)

/** Languages of sentiment analysis, summarization, key phrases and filler words (`disfluencies`). */
export const englishOnly: ReadonlySet<string> = new Set(english)

/** A code of ours that AssemblyAI spells differently (primary subtag, lower case). */
const toAssemblyAi: Readonly<Record<string, string>> = { jv: "jw", nb: "no", iw: "he", in: "id" }

/** AssemblyAI's code of a language, e.g. `en-US` → `en_us`, `pt-BR` → `pt`, `nb` → `no`. */
export const assemblyAiCode = (code: Language.LanguageCode): string => {
  const [primaryTag = code, region] = code.toLowerCase().split("-")
  if (primaryTag === "en") {
    if (region === "us") return "en_us"
    if (region === "gb" || region === "uk") return "en_uk"
    if (region === "au") return "en_au"
    return "en"
  }
  return toAssemblyAi[primaryTag] ?? primaryTag
}

const fromAssemblyAi: Readonly<Record<string, string>> = {
  en_us: "en-US",
  en_uk: "en-GB",
  en_au: "en-AU",
  jw: "jv"
}

/**
 * Our code of a language AssemblyAI reports (`language_code` of a transcript), or undefined when it
 * has no two-letter code (Hawaiian, `haw`) or is not a language code at all.
 */
export const languageOf = (assemblyAi: string): string | undefined => {
  const code = assemblyAi.trim().toLowerCase()
  const known = fromAssemblyAi[code]
  if (known !== undefined) return known
  const [primaryTag, region] = code.split(/[-_]/)
  if (primaryTag === undefined || !/^[a-z]{2}$/.test(primaryTag)) return undefined
  return region === undefined || !/^[a-z0-9]{2,8}$/.test(region)
    ? primaryTag
    : `${primaryTag}-${region.length === 2 ? region.toUpperCase() : region}`
}
