/**
 * ASR intelligence (`asr_intelligence`): what the billable ASR options add to a transcript.
 * Each field is absent or null unless its feature was requested.
 */
import { Schema } from "effect"
import { Millis } from "../transcript/segment.js"
import { absentUnless, Count, FreeFormObject, UnitInterval } from "./fields.js"

/** Topics and content safety: relevance (0 to 1) per label, and the provider's raw results. */
export class LabelSummary extends Schema.Class<LabelSummary>("LabelSummary")(
  {
    summary: Schema.Record({ key: Schema.String, value: UnitInterval }),
    results: Schema.Array(FreeFormObject)
  },
  { description: "Relevance (0 to 1) of each label, and the detailed results as free-form objects" }
) {}

export const Sentiment = Schema.Literal("POSITIVE", "NEGATIVE", "NEUTRAL").annotations({
  identifier: "Sentiment"
})
export type Sentiment = typeof Sentiment.Type

export class SentimentResult extends Schema.Class<SentimentResult>("SentimentResult")(
  {
    text: Schema.String,
    sentiment: Sentiment,
    confidence: UnitInterval,
    start: Millis,
    end: Millis
  },
  { description: "The sentiment of one stretch of speech" }
) {}

export class Entity extends Schema.Class<Entity>("Entity")(
  {
    text: Schema.String,
    entity_type: Schema.String,
    start: Millis,
    end: Millis
  },
  { description: "A named entity found in the speech" }
) {}

export class AutoHighlight extends Schema.Class<AutoHighlight>("AutoHighlight")(
  {
    text: Schema.String,
    count: Count,
    rank: UnitInterval
  },
  { description: "A key phrase, how often it occurs and its rank from 0 to 1" }
) {}

export class AutoHighlights extends Schema.Class<AutoHighlights>("AutoHighlights")(
  { results: Schema.Array(AutoHighlight) },
  { description: "Key phrases of the transcript" }
) {}

export class Chapter extends Schema.Class<Chapter>("Chapter")(
  {
    summary: Schema.String,
    headline: Schema.String,
    gist: Schema.String,
    start: Millis,
    end: Millis
  },
  { description: "An automatically detected chapter" }
) {}

const feature = <S extends Schema.Schema.Any>(schema: S) => absentUnless(Schema.NullOr(schema))

export class AsrIntelligence extends Schema.Class<AsrIntelligence>("AsrIntelligence")(
  {
    summary: feature(Schema.String),
    topics: feature(LabelSummary),
    content_safety: feature(LabelSummary),
    sentiment: feature(Schema.Array(SentimentResult)),
    entities: feature(Schema.Array(Entity)),
    auto_highlights: feature(AutoHighlights),
    chapters: feature(Schema.Array(Chapter))
  },
  { description: "Results of the ASR intelligence options; each field is null or absent unless requested" }
) {}
