import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { apiKeyPrefix, looksLikeApiKey, Secrets, webhookSecretPrefix } from "@verbatim/core"
import { Effect, FastCheck as fc, Redacted } from "effect"
import { Webhook } from "standardwebhooks"
import { NodeSecrets } from "../src/index.js"

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("NodeSecrets", () => {
  it.effect("uuid is a fresh v4 uuid each time", () =>
    Effect.gen(function* () {
      const secrets = yield* Secrets
      const ids = yield* Effect.all(Array.from({ length: 200 }, () => secrets.uuid))
      for (const id of ids) expect(id).toMatch(uuidV4)
      expect(new Set(ids).size).toBe(ids.length)
    }).pipe(Effect.provide(NodeSecrets.layer))
  )

  it.effect("an API key is vbt_ and 32 random bytes in base64url, and has the shape core accepts", () =>
    Effect.gen(function* () {
      const secrets = yield* Secrets
      const keys = yield* Effect.all(Array.from({ length: 200 }, () => secrets.newApiKey))
      for (const key of keys) {
        expect(key.startsWith(apiKeyPrefix)).toBe(true)
        const body = key.slice(apiKeyPrefix.length)
        expect(body).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(Buffer.from(body, "base64url").length).toBe(NodeSecrets.apiKeyRandomBytes)
        expect(looksLikeApiKey(key)).toBe(true)
      }
      expect(new Set(keys).size).toBe(keys.length)
    }).pipe(Effect.provide(NodeSecrets.layer))
  )

  it("the hash is the hex SHA-256 of the key: deterministic, 64 hex characters, never the key", () =>
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (key) => {
        const hash = Effect.runSync(NodeSecrets.make.hashApiKey(key))
        expect(hash).toMatch(/^[0-9a-f]{64}$/)
        expect(hash).toBe(createHash("sha256").update(key, "utf8").digest("hex"))
        expect(Effect.runSync(NodeSecrets.make.hashApiKey(key))).toBe(hash)
        expect(hash).not.toBe(key)
      })
    ))

  it("different keys have different hashes", () =>
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b)
        expect(Effect.runSync(NodeSecrets.make.hashApiKey(a))).not.toBe(
          Effect.runSync(NodeSecrets.make.hashApiKey(b))
        )
      })
    ))

  it('a known vector: sha256("abc")', () => {
    expect(Effect.runSync(NodeSecrets.make.hashApiKey("abc"))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
  })

  it.effect("a webhook secret is whsec_ and 32 random bytes in base64, redacted, fresh each time", () =>
    Effect.gen(function* () {
      const secrets = yield* Secrets
      const made = yield* Effect.all(Array.from({ length: 200 }, () => secrets.newWebhookSecret))
      const values = made.map((secret) => {
        expect(Redacted.isRedacted(secret)).toBe(true)
        expect(String(secret)).not.toContain(webhookSecretPrefix)
        return Redacted.value(secret)
      })
      for (const value of values) {
        expect(value.startsWith(webhookSecretPrefix)).toBe(true)
        const body = value.slice(webhookSecretPrefix.length)
        expect(body).toMatch(/^[A-Za-z0-9+/]{43}=$/)
        expect(Buffer.from(body, "base64").length).toBe(NodeSecrets.webhookSecretRandomBytes)
      }
      expect(new Set(values).size).toBe(values.length)
    }).pipe(Effect.provide(NodeSecrets.layer))
  )

  it.effect(
    "standardwebhooks reads a webhook secret as its key: what one side signs, the other verifies",
    () =>
      Effect.gen(function* () {
        const secret = Redacted.value(yield* NodeSecrets.make.newWebhookSecret)
        const other = Redacted.value(yield* NodeSecrets.make.newWebhookSecret)
        const payload = JSON.stringify({ job_id: "job_1", status: "completed" })
        const now = new Date()
        const headers = {
          "webhook-id": "msg_1",
          "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
          "webhook-signature": new Webhook(secret).sign("msg_1", now, payload)
        }
        expect(new Webhook(secret).verify(payload, headers)).toEqual(JSON.parse(payload))
        expect(() => new Webhook(other).verify(payload, headers)).toThrow()
        // The key is the decoded 32 bytes: signing with the raw bytes gives the same signature.
        const raw = Buffer.from(secret.slice(webhookSecretPrefix.length), "base64")
        expect(new Webhook(raw, { format: "raw" }).sign("msg_1", now, payload)).toBe(
          headers["webhook-signature"]
        )
      })
  )
})
