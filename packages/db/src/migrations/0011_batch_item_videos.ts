/**
 * Batch items by video: an item runs only when no earlier item of the account's batches names the
 * same video and is still not done (one fetch per video, whatever the batches that name it). This
 * index answers that look-up from the items still to run.
 */
import { statements } from "./statements.js"

export const batchItemVideos = statements(
  `CREATE INDEX batch_items_video_pending_idx ON batch_items (video_id) WHERE NOT done`
)
