/**
 * Properties of the local store's tokens and paths: every token round-trips, any change to any
 * character of a token is refused, every valid path stays under the root and round-trips through
 * the store.
 */
import { join, resolve, sep } from "node:path"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import {
  Chunk,
  DateTime,
  Effect,
  Either,
  FastCheck as fc,
  Logger,
  LogLevel,
  Option,
  Redacted,
  Stream
} from "effect"
import { BlobPath, LocalBlobStore, MediaType, PutToken } from "../src/index.js"
import { signingKey } from "./harness.js"

const segment = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,30}$/)
const validPath = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => segments.join("/"))
const mediaType = fc.constantFrom(
  "audio/mpeg",
  "video/mp4",
  "audio/ogg; codecs=opus",
  "video/x-matroska",
  "audio/vnd.wave",
  "application/octet-stream"
)
const claims = fc.record({
  path: validPath,
  contentType: mediaType,
  sizeBytes: fc.nat({ max: 2 ** 31 }),
  expiresAtMillis: fc.integer({ min: 0, max: 4_102_444_800_000 })
})
/** Characters a tampered token may hold: base64url's, the separator, and others. */
const anyChar = fc.oneof(
  fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/%"),
  fc.char(),
  fc.fullUnicode()
)

describe("PutToken", () => {
  it.prop("every token verifies to the claims it was signed with", [claims], ([signed]) => {
    const token = PutToken.sign(signingKey, signed)
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(PutToken.verify(signingKey, token)).toEqual(Either.right(signed))
  })

  it.prop(
    "any character replaced, removed or added is refused",
    [claims, fc.nat(), anyChar, fc.constantFrom("replace", "remove", "insert")],
    ([signed, at, char, change]) => {
      const token = PutToken.sign(signingKey, signed)
      const i = at % token.length
      const changed =
        change === "replace"
          ? token.slice(0, i) + char + token.slice(i + 1)
          : change === "remove"
            ? token.slice(0, i) + token.slice(i + 1)
            : token.slice(0, i) + char + token.slice(i)
      fc.pre(changed !== token)
      expect(Either.isLeft(PutToken.verify(signingKey, changed))).toBe(true)
    },
    { fastCheck: { numRuns: 2000 } }
  )

  it.prop(
    "a token made with another key is refused",
    [claims, fc.string({ minLength: 32 })],
    ([signed, other]) => {
      fc.pre(other !== Redacted.value(signingKey))
      const token = PutToken.sign(Redacted.make(other), signed)
      expect(Either.isLeft(PutToken.verify(signingKey, token))).toBe(true)
    }
  )
})

describe("BlobPath", () => {
  const root = resolve("/srv/blobs")
  const tricky = fc.string({
    unit: fc.constantFrom("a", "b", ".", "/", "\\", "-", "_", " ", "%", "~", ":", "\u0000", "é"),
    maxLength: 24
  })

  it.prop(
    "a valid path is under the root, never the root itself nor a hidden name",
    [fc.oneof(tricky, validPath)],
    ([path]) => {
      if (Either.isLeft(BlobPath.validate(path))) return
      const file = resolve(root, ...path.split("/"))
      expect(file.startsWith(root + sep)).toBe(true)
      expect(file.slice(root.length + 1)).toBe(path.split("/").join(sep))
      expect(path.split("/").every((part) => part !== "" && !part.startsWith("."))).toBe(true)
    }
  )

  it.prop("generated paths are valid", [validPath], ([path]) => {
    expect(BlobPath.validate(path)).toEqual(Either.right(path))
  })
})

describe("MediaType", () => {
  it.prop(
    "a media type matches itself in any letter case, and not with a parameter added",
    [mediaType, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 })],
    ([type, upper]) => {
      const recased = [...type].map((c, i) => (upper[i] === true ? c.toUpperCase() : c)).join("")
      const [essence = "", parameters] = recased.split(";")
      // Case is ignored in type, subtype and parameter names, not in parameter values.
      const sent = parameters === undefined ? essence : `${essence};${parameters.replace(/=.*/, "=opus")}`
      expect(MediaType.matches(type, sent)).toBe(true)
      expect(MediaType.matches(type, `${type}; x=1`)).toBe(false)
    }
  )
})

describe("LocalBlobStore paths", () => {
  it.scoped("every valid path round-trips through the store: sign, receive, stat, read, remove", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "verbatim-blobs-" })
      const { store, receiver } = yield* LocalBlobStore.make({
        root: join(dir, "blobs"),
        signingKey,
        signedUrlBase: "http://127.0.0.1/files"
      })
      const expiresAt = DateTime.add(yield* DateTime.now, { hours: 1 })
      const samples = fc.sample(fc.tuple(validPath, fc.uint8Array({ maxLength: 64 })), 60)
      for (const [path, body] of samples) {
        // A path that is a folder of an earlier sample cannot also be a file; skip those.
        const taken = yield* store.stat(path)
        if (Option.isSome(taken)) continue
        const ticket = yield* store.signPut(path, {
          contentType: "audio/mpeg",
          sizeBytes: body.byteLength,
          expiresAt
        })
        expect(ticket.path).toBe(path)
        const stored = yield* Effect.either(
          receiver.receive({
            token: ticket.token,
            contentType: "audio/mpeg",
            contentLength: body.byteLength,
            body: Stream.make(body)
          })
        )
        if (Either.isLeft(stored)) {
          // Only a file/folder clash with an earlier sample may refuse it.
          expect(stored.left._tag, path).toBe("BlobStoreError")
          continue
        }
        expect(yield* store.stat(path)).toEqual(
          Option.some({ sizeBytes: body.byteLength, contentType: "audio/mpeg" })
        )
        const back = yield* Stream.runCollect(store.read(path))
        expect(Buffer.concat(Chunk.toArray(back))).toEqual(Buffer.from(body))
      }
      const files = yield* fs.readDirectory(join(dir, "blobs"), { recursive: true })
      expect(files.every((name) => !name.startsWith(".."))).toBe(true)
    }).pipe(Effect.provide(NodeContext.layer), Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))
  )
})
