/** Language codes as the API carries them. */
import { Schema } from "effect"

/**
 * An ISO 639-1 language code (two lowercase letters), optionally with a region or script
 * subtag as the video platform reports caption tracks (`en`, `pt-BR`, `zh-Hans`).
 */
export const LanguageCode = Schema.String.pipe(
  Schema.pattern(/^[a-z]{2}(-[A-Za-z0-9]{2,8})?$/),
  Schema.brand("LanguageCode"),
  Schema.annotations({
    identifier: "LanguageCode",
    description: "ISO 639-1 language code, optionally with a region or script subtag",
    examples: ["en" as never, "pt-BR" as never]
  })
)
export type LanguageCode = typeof LanguageCode.Type

/** The primary language of a code: `pt-BR` → `pt`. */
export const primary = (code: LanguageCode): string => code.split("-")[0] ?? code

/** Whether two codes name the same primary language. */
export const samePrimary = (a: LanguageCode, b: LanguageCode): boolean =>
  primary(a).toLowerCase() === primary(b).toLowerCase()

/** The source language of ASR audio: a language code or `auto` to detect it. */
export const AsrLanguage = Schema.Union(Schema.Literal("auto"), LanguageCode).annotations({
  identifier: "AsrLanguage",
  description: "Source audio language as an ISO code, or auto to detect"
})
export type AsrLanguage = typeof AsrLanguage.Type

/** Every ISO 639-1 code (184 languages): what a model can be asked to translate into. */
export const iso639_1: ReadonlySet<string> = new Set(
  (
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy " +
    "da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu " +
    "hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb " +
    "lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om " +
    "or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw " +
    "ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu"
  ).split(" ")
)

/** Whether the code's primary language is an ISO 639-1 language (`pt-BR` → `pt`). */
export const isIsoLanguage = (code: LanguageCode): boolean => iso639_1.has(primary(code).toLowerCase())

/** Withdrawn ISO 639-1 codes the video platform still uses for caption tracks (`iw` is Hebrew). */
const withdrawn: ReadonlySet<string> = new Set(["iw", "in", "ji", "jw", "mo", "sh"])

/**
 * Whether a code names a language at all: ISO 639-1, or a withdrawn code still in use (`xx` does
 * not; `pt-BR` does). A requested language that does not is refused, never served in another one.
 */
export const isKnown = (code: LanguageCode): boolean =>
  isIsoLanguage(code) || withdrawn.has(primary(code).toLowerCase())
