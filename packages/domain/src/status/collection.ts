/**
 * Playlist and channel batch (collection) status. The spec leaves the values open; ours:
 * resolved (listed, nothing submitted yet), processing, completed, partial, failed.
 */
import { Schema } from "effect"

export const CollectionStatus = Schema.Literal(
  "resolved",
  "processing",
  "completed",
  "partial",
  "failed"
).annotations({ identifier: "CollectionStatus" })
export type CollectionStatus = typeof CollectionStatus.Type
