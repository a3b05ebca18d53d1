/**
 * OAuth sign-ins follow the API key that made them, so that revoking a key ends them:
 *
 * - `oauth_sign_ins`: a person who typed a valid API key on the consent page is held here, not in
 *   the page (the page carries only a random sign-in id, stored as its hash). A sign-in names the
 *   key, lives 10 minutes, is bound to its authorization request (`request_hash`) and is taken once.
 * - Codes and grants name the key that signed them in (`api_key_id`): a grant's tokens work only
 *   while that key is active (the store reads the key with the token), so revoking the key (or
 *   deleting it, or its account) ends them at once on every server. Revoking a key also revokes its
 *   grants in the same statement (`api_key_revoked`, whichever tool revokes it), so a key restored
 *   by hand brings none back. Codes issued before this migration are dropped and grants made before
 *   it are revoked: which key made them is unknown, so their assistants sign in again.
 */
import { statements } from "./statements.js"

export const oauthSignIns = statements(
  `CREATE TABLE oauth_sign_ins (
  id_hash text PRIMARY KEY,
  client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  request_hash text NOT NULL,
  expires_at timestamptz NOT NULL
)`,
  `CREATE INDEX oauth_sign_ins_expiry_idx ON oauth_sign_ins (expires_at)`,
  `CREATE INDEX oauth_sign_ins_client_idx ON oauth_sign_ins (client_id)`,
  `DELETE FROM oauth_codes`,
  `ALTER TABLE oauth_codes ADD COLUMN api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE`,
  `CREATE INDEX oauth_codes_client_idx ON oauth_codes (client_id)`,
  `ALTER TABLE oauth_grants ADD COLUMN api_key_id uuid REFERENCES api_keys (id) ON DELETE CASCADE`,
  `UPDATE oauth_grants SET revoked_at = now() WHERE revoked_at IS NULL`,
  `CREATE INDEX oauth_grants_key_idx ON oauth_grants (api_key_id)`,
  `CREATE FUNCTION revoke_key_grants() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE oauth_grants SET revoked_at = NEW.revoked_at WHERE api_key_id = NEW.id AND revoked_at IS NULL;
  RETURN NULL;
END
$$`,
  `CREATE TRIGGER api_key_revoked AFTER UPDATE OF revoked_at ON api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION revoke_key_grants()`,
  `CREATE INDEX oauth_clients_created_idx ON oauth_clients (created_at)`
)
