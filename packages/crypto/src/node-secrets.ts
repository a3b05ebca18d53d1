/**
 * The `Secrets` port on `node:crypto`: uuid v4 from `randomUUID`, API keys made of the `vbt_` prefix
 * and 32 random bytes in base64url (256 bits, 43 characters), and key hashes as hex SHA-256.
 *
 * A plain (unsalted) SHA-256 is enough for API keys: they carry 256 bits of randomness, so no
 * dictionary or brute force applies, and an unsalted hash lets the key be found by its hash in one
 * indexed lookup.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { apiKeyPrefix, Secrets } from "@verbatim/core"
import { Effect, Layer } from "effect"

/** Random bytes in every new API key. */
export const apiKeyRandomBytes = 32

/** The service itself, for callers that need it without a Layer. */
export const make: Secrets["Type"] = {
  uuid: Effect.sync(() => randomUUID()),
  newApiKey: Effect.sync(() => `${apiKeyPrefix}${randomBytes(apiKeyRandomBytes).toString("base64url")}`),
  hashApiKey: (key) => Effect.sync(() => createHash("sha256").update(key, "utf8").digest("hex"))
}

export const layer: Layer.Layer<Secrets> = Layer.succeed(Secrets, make)
