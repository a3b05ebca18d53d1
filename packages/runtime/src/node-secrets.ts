/**
 * The `Secrets` port on `node:crypto`: uuid v4 from `randomUUID`, API keys made of the `vbt_` prefix
 * and 32 random bytes in base64url (256 bits, 43 characters), and key hashes as hex SHA-256.
 *
 * A plain (unsalted) SHA-256 is enough for API keys: they carry 256 bits of randomness, so no
 * dictionary or brute force applies, and an unsalted hash lets the key be found by its hash in one
 * indexed lookup.
 *
 * Webhook signing secrets have the Standard Webhooks format, `whsec_` and 32 random bytes in
 * standard base64, which the `standardwebhooks` package (sender and receivers) reads as the key.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { apiKeyPrefix, Secrets, webhookSecretPrefix } from "@verbatim/core"
import { Effect, Layer, Redacted } from "effect"

/** Random bytes in every new API key. */
export const apiKeyRandomBytes = 32

/** Random bytes in every new webhook signing secret (the HMAC-SHA256 key). */
export const webhookSecretRandomBytes = 32

/** The service itself, for callers that need it without a Layer. */
export const make: Secrets["Type"] = {
  uuid: Effect.sync(() => randomUUID()),
  newApiKey: Effect.sync(() => `${apiKeyPrefix}${randomBytes(apiKeyRandomBytes).toString("base64url")}`),
  hashApiKey: (key) => Effect.sync(() => createHash("sha256").update(key, "utf8").digest("hex")),
  newWebhookSecret: Effect.sync(() =>
    Redacted.make(`${webhookSecretPrefix}${randomBytes(webhookSecretRandomBytes).toString("base64")}`)
  )
}

export const layer: Layer.Layer<Secrets> = Layer.succeed(Secrets, make)
