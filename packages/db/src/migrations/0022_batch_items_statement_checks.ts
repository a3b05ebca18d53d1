/**
 * The link from `batch_items` to `batches` checked once per statement instead of once per row. A
 * foreign key checks each inserted item on its own (a look-up and a share lock on the batch's row
 * per item): 3,000 items spent about a third of their insert, the bulk of `POST /batch`, there
 * (decision BATCH-18). The same two rules, per statement:
 *
 * - an insert of items whose batch does not exist fails, as the foreign key did;
 * - deleting batches (directly, or by deleting their account) deletes their items.
 *
 * Items are only ever inserted with their batch, in the batch's transaction, and neither key is
 * ever updated, so no update rule is needed.
 */
import { statements } from "./statements.js"

export const batchItemsStatementChecks = statements(
  `ALTER TABLE batch_items DROP CONSTRAINT batch_items_batch_id_fkey`,
  `CREATE FUNCTION batch_items_check_batches() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_missing uuid;
BEGIN
  SELECT n.batch_id INTO v_missing FROM (SELECT DISTINCT batch_id FROM new_items) n
    WHERE NOT EXISTS (SELECT 1 FROM batches b WHERE b.id = n.batch_id) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'insert on table "batch_items" names batch % that does not exist', v_missing
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$`,
  `CREATE TRIGGER batch_items_batch_exists AFTER INSERT ON batch_items
  REFERENCING NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION batch_items_check_batches()`,
  `CREATE FUNCTION batches_delete_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM batch_items i USING gone_batches g WHERE i.batch_id = g.id;
  RETURN NULL;
END $$`,
  `CREATE TRIGGER batches_cascade_items AFTER DELETE ON batches
  REFERENCING OLD TABLE AS gone_batches FOR EACH STATEMENT EXECUTE FUNCTION batches_delete_items()`
)
