/**
 * `post_charge_or_raise`: a charge (`post_ledger_entry` with the amount taken) that raises when the
 * available balance cannot cover it, so that a statement which also wrote what the charge pays for
 * (`Jobs.insertPaid`: the transcript and its job, in data-modifying CTEs) leaves nothing
 * behind: the whole statement fails, and in its own implicit transaction nothing is written.
 *
 * It raises SQLSTATE `VB402` with the available balance as its DETAIL, and `foreign_key_violation`
 * for an account that does not exist; it answers the available balance after the charge (or as it
 * stands when the key was posted before, which inserts nothing). Being VOLATILE like
 * `post_ledger_entry`, the statements it runs take snapshots of their own: the balance is read after
 * the account's row lock was granted, whatever the calling statement's snapshot (decision CR-13).
 */
import { statements } from "./statements.js"

export const postChargeOrRaise = statements(
  `CREATE FUNCTION post_charge_or_raise(
  p_account uuid, p_amount bigint, p_key text, p_job uuid, p_reason text, p_at timestamptz
) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_posted record;
BEGIN
  SELECT * INTO v_posted FROM post_ledger_entry(p_account, 'charge', -p_amount, p_key, p_job, p_reason, p_at);
  IF NOT FOUND THEN
    RAISE EXCEPTION 'account % does not exist', p_account USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF v_posted.applied OR v_posted.posted THEN
    RETURN v_posted.available;
  END IF;
  RAISE EXCEPTION 'insufficient credits: % required', p_amount
    USING ERRCODE = 'VB402', DETAIL = v_posted.available::text;
END
$$`
)
