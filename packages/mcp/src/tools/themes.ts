/**
 * get_themes: the themes, keywords and moments of an owned transcript; free to read, 1 credit once
 * to unlock.
 */
import { type Api, Credits, Language, Transcript } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { AccountOperations } from "../operations.js"
import { defineTool } from "../tool.js"
import { Count, plural, transcribeFirst, VideoIdInput, withNextStep } from "./shared.js"

// ---------------------------------------------------------------------------------------------
// get_themes
// ---------------------------------------------------------------------------------------------

const ThemesKeywordOutput = Schema.Struct({
  term: Schema.String,
  aliases: Schema.Array(Schema.String),
  mention_count: Count,
  mentions: Schema.Array(
    Schema.Struct({ segment_index: Count, start: Count.annotations({ description: "milliseconds" }) })
  )
})

const ThemesOutput = Schema.Struct({
  status: Schema.Literal("locked", "processing", "completed"),
  video_id: Schema.String,
  language: Language.LanguageCode,
  credits_used: Credits.Credits,
  credits_required: Schema.optionalWith(Credits.Credits, { exact: true }).annotations({
    description: "What unlocking costs, while locked"
  }),
  tldr: Schema.optionalWith(Schema.String, { exact: true }),
  themes: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      name: Schema.String,
      summary: Schema.String,
      share: Schema.Number,
      mention_count: Count,
      keywords: Schema.Array(ThemesKeywordOutput)
    })
  ),
  moments: Schema.Array(
    Schema.Struct({
      theme_id: Schema.String,
      label: Schema.String,
      quote: Schema.String,
      start: Count.annotations({ description: "milliseconds" }),
      end: Count.annotations({ description: "milliseconds" }),
      segment_start: Count,
      segment_end: Count
    })
  ),
  next_step: Schema.String
})
type ThemesOutput = typeof ThemesOutput.Type

const themesOutput = (state: Api.ThemesState): ThemesOutput => {
  switch (state.status) {
    case "locked":
      return {
        status: "locked",
        video_id: state.video_id,
        language: state.language,
        credits_used: 0,
        credits_required: state.credits_required,
        themes: [],
        moments: [],
        next_step: `Locked. Unlocking costs ${plural(state.credits_required, "credit")} once (tell the user first): call get_themes again with unlock true.`
      }
    case "processing":
      return {
        status: "processing",
        video_id: state.video_id,
        language: state.language,
        credits_used: 0,
        themes: [],
        moments: [],
        next_step: "Paid and still being detected: call get_themes again (without unlock) in a little while."
      }
    case "completed":
      return {
        status: "completed",
        video_id: state.video_id,
        language: state.language,
        credits_used: state.credits_used,
        tldr: state.tldr,
        themes: state.themes.map((theme) => ({
          id: theme.id,
          name: theme.name,
          summary: theme.summary,
          share: theme.share,
          mention_count: theme.mention_count,
          keywords: theme.keywords.map((k) => ({
            term: k.term,
            aliases: k.aliases,
            mention_count: k.mention_count,
            mentions: k.mentions.map((m) => ({ segment_index: m.segment_index, start: m.start }))
          }))
        })),
        moments: state.moments.map((m) => ({
          theme_id: m.theme_id,
          label: m.label,
          quote: m.quote,
          start: m.start,
          end: m.end,
          segment_start: m.segment_start,
          segment_end: m.segment_end
        })),
        next_step:
          state.themes.length === 0
            ? "No themes: the transcript is too short to analyse."
            : "Unlocked for good: reading the themes again is free. get_transcript shows the segments the mentions point at."
      }
  }
}

export const getThemes = defineTool({
  name: "get_themes",
  title: "Themes, keywords and moments of a transcript",
  description:
    "The themes, keywords (with the segments that mention them) and quoted moments of a transcript the user owns, with a short tldr. Without unlock it is free and never starts anything: a transcript not unlocked yet answers locked with credits_required. With unlock true it unlocks the themes for 1 credit, once (tell the user first; 0 for a transcript under 50 words, which gets no themes; free once unlocked) and waits up to about 25 seconds; processing means paid and still running.",
  input: Schema.Struct({
    video_id: VideoIdInput,
    language: Schema.optional(
      Language.LanguageCode.annotations({
        description: "Which owned transcript, by language; leave out for the best one"
      })
    ),
    source: Schema.optional(
      Transcript.SourceKind.annotations({
        description: "Which owned transcript, by source: manual, auto or asr"
      })
    ),
    unlock: Schema.optional(
      Schema.Boolean.annotations({ description: "true: unlock (1 credit, once); leave out to read for free" })
    )
  }),
  output: ThemesOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  text: (output) =>
    [
      `Themes of ${output.video_id} (${output.language}): ${output.status}.`,
      ...(output.tldr === undefined || output.tldr === "" ? [] : [`TL;DR: ${output.tldr}`]),
      ...output.themes.map(
        (theme) =>
          `- ${theme.name} (${Math.round(theme.share * 100)}%): ${theme.keywords.map((k) => k.term).join(", ")}`
      ),
      output.next_step
    ].join("\n"),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const query = {
        ...(input.language === undefined ? {} : { language: input.language }),
        ...(input.source === undefined ? {} : { source: input.source })
      }
      return themesOutput(
        yield* operations
          .themes(input.video_id, query, input.unlock === true)
          .pipe(Effect.mapError(withNextStep({ not_found: () => transcribeFirst(input.video_id) })))
      )
    })
})
