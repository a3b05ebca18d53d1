/**
 * `mark_batch_item_done`: an item's done mark and the check whether it was its batch's last, as one
 * round trip (`Batches.itemDone`). The check must see every other item's mark: two items marked at
 * once that each read the other as not done yet would both leave the batch to the reconciler. So
 * the marks of one batch take turns on the batch's row (`FOR NO KEY UPDATE`, held until the mark
 * commits), and, in a VOLATILE function, the statements after the lock take snapshots of their own:
 * of two last items at once, the one marked second sees the first's mark (as CR-13's postings do).
 *
 * It answers `not held` (nothing written: the item is done, or its lease is another's), `marked`,
 * or `last` (no item of the batch is left undone).
 */
import { statements } from "./statements.js"

export const markBatchItemDone = statements(
  `CREATE FUNCTION mark_batch_item_done(p_batch uuid, p_position integer, p_owner text) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM 1 FROM batches WHERE id = p_batch FOR NO KEY UPDATE;
  UPDATE batch_items SET done = true, lease_owner = NULL, lease_expires_at = NULL
  WHERE batch_id = p_batch AND position = p_position AND lease_owner = p_owner AND NOT done;
  IF NOT FOUND THEN
    RETURN 'not held';
  END IF;
  IF EXISTS (SELECT 1 FROM batch_items WHERE batch_id = p_batch AND NOT done) THEN
    RETURN 'marked';
  END IF;
  RETURN 'last';
END
$$`
)
