/**
 * The default mode an account starts with (POST /transcribe rule 4): `auto` for accounts created
 * from October 2026 (UTC), `captions_only` for older ones. The account may change it later on the
 * dashboard; the stored default then wins and this is only used when an account is created.
 */
import { DateTime } from "effect"
import type { Mode } from "./mode.js"

/** The first instant at which new accounts default to `auto`: 2026-10-01T00:00:00Z. */
export const autoDefaultSince: DateTime.Utc = DateTime.unsafeMake("2026-10-01T00:00:00Z")

const epochMillis = (at: Date | DateTime.DateTime): number =>
  at instanceof Date ? at.getTime() : DateTime.toEpochMillis(at)

/**
 * The default mode of an account created at `createdAt`. An invalid `Date` counts as an old
 * account (`captions_only`), the choice that never charges ASR credits.
 */
export const defaultModeFor = (createdAt: Date | DateTime.DateTime): Mode =>
  epochMillis(createdAt) >= DateTime.toEpochMillis(autoDefaultSince) ? "auto" : "captions_only"
