/**
 * The upload storage the environment chooses: the local folder by default, an S3-compatible bucket
 * when VERBATIM_S3_BUCKET is set. The S3 adapter (and the AWS SDK under it) is loaded only then.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { BlobStore } from "@verbatim/core"
import { ConfigProvider, Effect } from "effect"
import { StorageConfig, storageFor } from "../src/index.js"

const storeOf = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const settings = yield* StorageConfig
    const store = yield* Effect.provide(BlobStore, storageFor(settings, "http://127.0.0.1:3000"))
    return { kind: settings._tag, bucket: store.bucket }
  }).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("upload storage by settings", () => {
  it.effect("the local folder without a bucket, the bucket when VERBATIM_S3_BUCKET is set", () =>
    Effect.gen(function* () {
      const local = yield* storeOf({ VERBATIM_DATA_DIR: mkdtempSync(join(tmpdir(), "verbatim-storage-")) })
      expect(local.kind).toBe("local")
      const s3 = yield* storeOf({
        VERBATIM_S3_BUCKET: "uploads",
        VERBATIM_S3_ENDPOINT: "http://127.0.0.1:9",
        VERBATIM_S3_FORCE_PATH_STYLE: "true",
        VERBATIM_S3_ACCESS_KEY_ID: "id",
        VERBATIM_S3_SECRET_ACCESS_KEY: "secret"
      })
      expect(s3).toEqual({ kind: "s3", bucket: "uploads" })
    }).pipe(Effect.scoped)
  )
})
