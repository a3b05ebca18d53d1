/** GET /transcripts/{video_id}/languages: the languages owned plus the platform's translation targets. */
import { Schema } from "effect"
import { LanguageCode } from "../language.js"
import { allErrors, booleanQuery } from "./fields.js"

export const LanguagesQuery = Schema.Struct({
  /** Include the platform's translation targets. */
  include_youtube_default: booleanQuery(true)
}).annotations({
  identifier: "LanguagesQuery",
  description: "include_youtube_default (default true): include the platform's translation targets",
  ...allErrors
})
export type LanguagesQuery = typeof LanguagesQuery.Type

export class LanguagesResponse extends Schema.Class<LanguagesResponse>("LanguagesResponse")(
  {
    video_id: Schema.String,
    languages: Schema.Array(LanguageCode),
    platform_translation_languages: Schema.Array(LanguageCode)
  },
  { description: "The languages owned for the video and the platform's translation targets" }
) {}
