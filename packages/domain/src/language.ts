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
