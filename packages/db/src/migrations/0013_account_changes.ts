/**
 * Every change that can alter what an API key stands for (a key revoked, changed or deleted; an
 * account's plan, name, default mode or onboarding changed, or the account deleted) notifies
 * `accountChangesChannel` when its transaction commits, whichever process or tool made it. Servers
 * listen there to drop the accounts they keep for recent keys (`AccountChangesSql`). Balance
 * updates do not notify: kept accounts hold no balance.
 */
import { statements } from "./statements.js"

/**
 * The NOTIFY channel of account and key changes. Its payload is the schema of the table changed, so
 * that listeners ignore other databases sharing the server (a schema each, as the tests make).
 */
export const accountChangesChannel = "verbatim_account_changes"

export const accountChanges = statements(
  `CREATE FUNCTION notify_account_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${accountChangesChannel}', TG_TABLE_SCHEMA);
  RETURN NULL;
END
$$`,
  `CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_account_change()`,
  `CREATE TRIGGER accounts_changed
  AFTER UPDATE OF id, name, plan, default_mode, onboarding_completed OR DELETE OR TRUNCATE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION notify_account_change()`
)
