/**
 * Sessions of the web library (core's `WebSessions`): a person signed in with an API key,
 * the browser holding only a random token in a cookie. Kept here as the token's hash, with the key
 * it was made with (a session works only while that key is active: the store reads the key with the
 * session; deleting the key or its account deletes its sessions), and its end (`expires_at`, moved
 * while the session is used, never past `created_at` plus the absolute lifetime).
 */
import { statements } from "./statements.js"

export const webSessions = statements(
  `CREATE TABLE web_sessions (
  id_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
)`,
  `CREATE INDEX web_sessions_expiry_idx ON web_sessions (expires_at)`,
  `CREATE INDEX web_sessions_key_idx ON web_sessions (api_key_id)`
)
