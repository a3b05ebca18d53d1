/**
 * Themes of a stored transcript (spec "Themes status"): the record of an account's unlock of one
 * transcript's themes, and the engine that detects them.
 *
 * A record exists once a POST unlocked the themes (no record: locked). Its status follows
 * `Status.ThemesMachine`: processing (paid, detection running), completed (the result stored) or
 * refunded (detection failed, the credit given back; shown as locked, and a new POST may unlock
 * again). Every move is a compare-and-set on the current status, so two requests can never both
 * unlock (and charge) one transcript, and only the worker holding the lease settles a detection.
 * `unlocks` counts the paid unlocks: the ledger keys of a charge and its refund name it, so each is
 * posted once.
 */
import { Api, Credits, Ids, Language, Status, type Transcript } from "@verbatim/domain"
import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import type { PersistenceError } from "../errors.js"

export const ThemesId = Schema.UUID.pipe(
  Schema.brand("ThemesId"),
  Schema.annotations({ identifier: "ThemesId", description: "Id of a themes record (uuid)" })
)
export type ThemesId = typeof ThemesId.Type

/** What an engine detects: the response body without its envelope. */
export const ThemesDetection = Schema.Struct({
  tldr: Schema.String,
  moments: Schema.Array(Api.ThemeMoment),
  themes: Schema.Array(Api.Theme)
})
export interface ThemesDetection extends Schema.Schema.Type<typeof ThemesDetection> {}

/** The colors of themes, in order (a theme's color name and its hex value), for every engine. */
export const themeColors: ReadonlyArray<readonly [string, string]> = [
  ["blue", "#2563EB"],
  ["orange", "#EA580C"],
  ["green", "#16A34A"],
  ["purple", "#9333EA"],
  ["red", "#DC2626"],
  ["teal", "#0D9488"],
  ["pink", "#DB2777"],
  ["amber", "#D97706"]
]

/** The color of the theme at `index` (the palette repeats). */
export const themeColor = (index: number): readonly [string, string] =>
  themeColors[index % themeColors.length] as readonly [string, string]

/** An empty detection: what a transcript too short to analyse gets. */
export const emptyDetection: ThemesDetection = { tldr: "", moments: [], themes: [] }

export const ThemesRecord = Schema.Struct({
  id: ThemesId,
  accountId: Ids.AccountId,
  transcriptId: Ids.TranscriptId,
  videoId: Schema.String,
  language: Language.LanguageCode,
  status: Status.ThemesStatus,
  /** Paid unlocks so far (a refunded record unlocked again counts twice). */
  unlocks: Schema.NonNegativeInt,
  /** What the latest unlock charged (0 for a transcript too short to analyse). */
  creditsCharged: Credits.Credits,
  /** The detection, once completed. */
  result: Schema.NullOr(ThemesDetection),
  /** Why the latest detection failed. */
  error: Schema.NullOr(Schema.String),
  /** Claims of the latest unlock's detection by workers. */
  attempts: Schema.NonNegativeInt,
  leaseOwner: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc,
  completedAt: Schema.NullOr(Schema.DateTimeUtc)
})
export interface ThemesRecord extends Schema.Schema.Type<typeof ThemesRecord> {}

/** An unlock: creates the record, or moves a refunded one, to `status`. */
export interface Unlock {
  /** The id of the record when it is new. */
  readonly id: ThemesId
  readonly accountId: Ids.AccountId
  readonly transcriptId: Ids.TranscriptId
  readonly videoId: string
  readonly language: Language.LanguageCode
  /** processing (detection to run), or completed with `result` (nothing to detect). */
  readonly status: "processing" | "completed"
  readonly result: ThemesDetection | null
  readonly creditsCharged: Credits.Credits
  readonly at: DateTime.Utc
}

export interface ThemesClaim {
  readonly id: ThemesId
  readonly owner: string
  readonly now: DateTime.Utc
  readonly leaseMs: number
}

export class ThemesStore extends Context.Tag("@verbatim/core/ThemesStore")<
  ThemesStore,
  {
    /** The account's record for a transcript; none while locked. */
    readonly find: (
      accountId: Ids.AccountId,
      transcriptId: Ids.TranscriptId
    ) => Effect.Effect<Option.Option<ThemesRecord>, PersistenceError>
    /** The record with this id, whoever owns it (for workers). */
    readonly get: (id: ThemesId) => Effect.Effect<Option.Option<ThemesRecord>, PersistenceError>
    /**
     * Locked (no record) or refunded -> `status`, counting one more unlock; the record after the
     * move, none when it was neither (another request unlocked it first).
     */
    readonly unlock: (unlock: Unlock) => Effect.Effect<Option.Option<ThemesRecord>, PersistenceError>
    /** Takes the lease of a processing record whose lease is free or expired; counts an attempt. */
    readonly claim: (claim: ThemesClaim) => Effect.Effect<Option.Option<ThemesRecord>, PersistenceError>
    /** Keeps the lease alive; false when it is no longer `owner`'s. */
    readonly extendLease: (claim: ThemesClaim) => Effect.Effect<boolean, PersistenceError>
    /** processing -> completed with the result, only under `owner`'s lease. */
    readonly complete: (
      id: ThemesId,
      owner: string,
      result: ThemesDetection,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<ThemesRecord>, PersistenceError>
    /** processing -> refunded with the error, only under `owner`'s lease (the refund is the caller's). */
    readonly refund: (
      id: ThemesId,
      owner: string,
      error: string,
      at: DateTime.Utc
    ) => Effect.Effect<Option.Option<ThemesRecord>, PersistenceError>
    /** Gives the lease up (the worker is stopping): the record may be claimed at once. */
    readonly release: (id: ThemesId, owner: string) => Effect.Effect<void, PersistenceError>
    /** Processing records whose lease is free or expired, at most `limit`. */
    readonly runnable: (
      now: DateTime.Utc,
      limit: number
    ) => Effect.Effect<ReadonlyArray<ThemesRecord>, PersistenceError>
  }
>() {}

/** What an engine is given: the transcript's segments (indexes are positions in this array). */
export interface ThemesInput {
  readonly videoId: string
  readonly language: Language.LanguageCode
  readonly title: string | null
  readonly segments: ReadonlyArray<Transcript.Segment>
}

/** The engine could not detect the themes (the detection is refunded). */
export class ThemesEngineError extends Schema.TaggedError<ThemesEngineError>()("ThemesEngineError", {
  engine: Schema.String,
  reason: Schema.String
}) {}

/** Detects the themes, keywords and moments of a transcript. */
export class ThemesEngine extends Context.Tag("@verbatim/core/ThemesEngine")<
  ThemesEngine,
  {
    readonly name: string
    readonly detect: (input: ThemesInput) => Effect.Effect<ThemesDetection, ThemesEngineError>
  }
>() {}

/**
 * Where a detection points outside its transcript: each mention and moment must name a segment
 * that exists, with that segment's start (a moment: its first segment's start and last segment's
 * end); theme ids of moments must exist. Empty: every anchor is real.
 */
export const misplacedAnchors = (
  segments: ReadonlyArray<Transcript.Segment>,
  detection: ThemesDetection
): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const themeIds = new Set(detection.themes.map((t) => t.id))
  for (const theme of detection.themes) {
    for (const keyword of theme.keywords) {
      for (const mention of keyword.mentions) {
        const segment = segments[mention.segment_index]
        if (segment === undefined)
          problems.push(`${keyword.id}: segment ${mention.segment_index} does not exist`)
        else if (segment.start !== mention.start) {
          problems.push(
            `${keyword.id}: mention at ${mention.start} ms, segment ${mention.segment_index} starts at ${segment.start}`
          )
        }
      }
    }
  }
  for (const moment of detection.moments) {
    const first = segments[moment.segment_start]
    const last = segments[moment.segment_end]
    if (first === undefined || last === undefined || moment.segment_start > moment.segment_end) {
      problems.push(`${moment.id}: segments ${moment.segment_start}..${moment.segment_end} do not exist`)
    } else if (first.start !== moment.start || last.end !== moment.end) {
      problems.push(`${moment.id}: ${moment.start}..${moment.end} ms is not the time of its segments`)
    }
    if (!themeIds.has(moment.theme_id)) problems.push(`${moment.id}: theme ${moment.theme_id} does not exist`)
  }
  return problems
}
