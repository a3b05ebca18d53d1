/**
 * Themes of a transcript: POST and GET /transcripts/{video_id}/themes. The answer is one of three
 * bodies told apart by `status`: completed (ThemesResponse, 200), locked (GET before unlocking,
 * 200) and processing (202; the spec shows only its status, we add video_id and language).
 */
import { Schema } from "effect"
import { Credits } from "../credits.js"
import { LanguageCode } from "../language.js"
import { Millis } from "../transcript/segment.js"
import { allErrors, Count, UnitInterval } from "./fields.js"
import { transcriptSelectorFields } from "./stored-transcript.js"

/** POST and GET themes query: which owned transcript of the video (id, language, source). */
export const ThemesQuery = Schema.Struct(transcriptSelectorFields).annotations({
  identifier: "ThemesQuery",
  description: "id (a transcript or job uuid), language and source select the transcript",
  ...allErrors
})
export type ThemesQuery = typeof ThemesQuery.Type

export const ColorHex = Schema.String.pipe(Schema.pattern(/^#[0-9A-Fa-f]{6}$/)).annotations({
  identifier: "ColorHex",
  description: "A color as #RRGGBB"
})

export class ThemeMoment extends Schema.Class<ThemeMoment>("ThemeMoment")(
  {
    id: Schema.String,
    theme_id: Schema.String,
    label: Schema.String,
    quote: Schema.String,
    color_hex: ColorHex,
    start: Millis,
    end: Millis,
    /** Index of the first segment of the moment. */
    segment_start: Count,
    /** Index of the last segment of the moment. */
    segment_end: Count
  },
  { description: "A quoted moment of the transcript that belongs to a theme" }
) {}

export class KeywordMention extends Schema.Class<KeywordMention>("KeywordMention")(
  {
    segment_index: Count,
    start: Millis
  },
  { description: "Where a keyword is mentioned" }
) {}

export class ThemeKeyword extends Schema.Class<ThemeKeyword>("ThemeKeyword")(
  {
    id: Schema.String,
    term: Schema.String,
    aliases: Schema.Array(Schema.String),
    definition: Schema.String,
    mention_count: Count,
    mentions: Schema.Array(KeywordMention)
  },
  { description: "A keyword of a theme, its definition and its mentions" }
) {}

export class Theme extends Schema.Class<Theme>("Theme")(
  {
    id: Schema.String,
    name: Schema.String,
    summary: Schema.String,
    color: Schema.String,
    color_hex: ColorHex,
    /** The theme's share of the transcript, from 0 to 1. */
    share: UnitInterval,
    mention_count: Count,
    moment_count: Count,
    keywords: Schema.Array(ThemeKeyword)
  },
  { description: "A theme of the transcript with its keywords" }
) {}

/** 200: the themes of a transcript (empty for a transcript too short to analyse). */
export class ThemesResponse extends Schema.Class<ThemesResponse>("ThemesResponse")(
  {
    video_id: Schema.String,
    language: LanguageCode,
    status: Schema.Literal("completed"),
    credits_used: Credits,
    credits_remaining: Credits,
    tldr: Schema.String,
    moments: Schema.Array(ThemeMoment),
    themes: Schema.Array(Theme)
  },
  { description: "The themes, keywords and moments of a transcript" }
) {}

/** 200 on GET until the themes are unlocked with POST. */
export class ThemesLocked extends Schema.Class<ThemesLocked>("ThemesLocked")(
  {
    status: Schema.Literal("locked"),
    video_id: Schema.String,
    language: LanguageCode,
    credits_required: Credits
  },
  { description: "Themes not unlocked yet: POST charges credits_required once" }
) {}

/** 202: detection is paid and still running; poll GET. */
export class ThemesProcessing extends Schema.Class<ThemesProcessing>("ThemesProcessing")(
  {
    status: Schema.Literal("processing"),
    video_id: Schema.String,
    language: LanguageCode
  },
  { description: "Theme detection is paid and still running (202); poll GET" }
) {}

/** Every answer of the themes endpoints. */
export const ThemesState = Schema.Union(ThemesResponse, ThemesLocked, ThemesProcessing).annotations({
  identifier: "ThemesState",
  description: "Themes: completed, locked or processing"
})
export type ThemesState = typeof ThemesState.Type
