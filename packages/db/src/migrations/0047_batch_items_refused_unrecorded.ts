/**
 * Batch items refused before their job was recorded: marked done with neither a job nor
 * an error, they kept their batch `processing` forever. Such items of batches still processing get
 * the error they never had, so the reconciler finishes those batches (`Batches.itemFailed` records
 * it from now on).
 */
import { statements } from "./statements.js"

export const batchItemsRefusedUnrecorded = statements(
  `UPDATE batch_items i SET error = 'refused before its job was recorded'
  FROM batches b
  WHERE b.id = i.batch_id AND b.status = 'processing' AND i.done AND i.error IS NULL
    AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = i.job_id)`
)
