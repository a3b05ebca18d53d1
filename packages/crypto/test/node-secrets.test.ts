import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { apiKeyPrefix, looksLikeApiKey, Secrets } from "@verbatim/core"
import { Effect, FastCheck as fc } from "effect"
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
})
