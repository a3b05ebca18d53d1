/**
 * `post_ledger_entry`: one posting (a grant, charge or refund) as one round trip that still takes
 * the account's row lock in a statement of its own (decision CR-13). A one-statement posting that
 * locked the row in a CTE, checked the balance and moved it was seen on PostgreSQL to check a
 * balance older than the row it moved; run as separate statements from the application, the lock
 * costs a round trip more, held under the lock, which all the postings of one account wait on (a
 * batch's items charge one account). In a volatile PL/pgSQL function each statement reads with a
 * snapshot of its own, taken when it starts: the statements after the lock see every posting
 * committed before it was granted.
 *
 * It answers one row for an existing account, none for an unknown one: the available balance
 * (`credits - held`) after the posting when it inserted the entry, else as it stands; whether it
 * inserted it; and whether the key was posted before (read only when nothing was inserted).
 * A posting the available balance cannot cover inserts nothing and raises nothing, so the
 * caller's transaction stays usable; a key posted before inserts nothing either.
 */
import { statements } from "./statements.js"

export const postLedgerEntry = statements(
  `CREATE FUNCTION post_ledger_entry(
  p_account uuid, p_kind text, p_delta bigint, p_key text, p_job uuid, p_reason text, p_at timestamptz
) RETURNS TABLE (available bigint, applied boolean, posted boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_available bigint;
  v_after bigint;
BEGIN
  SELECT a.credits - a.held INTO v_available FROM accounts a WHERE a.id = p_account FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF v_available + p_delta >= 0 THEN
    WITH entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, key, job_id, reason, created_at)
      VALUES (p_account, p_kind, p_delta, p_key, p_job, p_reason, p_at)
      ON CONFLICT (account_id, key) DO NOTHING
      RETURNING account_id
    )
    UPDATE accounts a SET credits = a.credits + p_delta
    WHERE a.id IN (SELECT e.account_id FROM entry e)
    RETURNING a.credits - a.held INTO v_after;
    IF v_after IS NOT NULL THEN
      RETURN QUERY SELECT v_after, true, false;
    ELSE
      RETURN QUERY SELECT v_available, false, true;
    END IF;
    RETURN;
  END IF;
  RETURN QUERY SELECT v_available, false,
    EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = p_account AND e.key = p_key);
END
$$`
)
