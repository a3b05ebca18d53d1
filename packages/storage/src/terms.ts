/** Checks shared by both stores before anything is signed or touched. */
import { BlobStoreError, type PutTerms } from "@verbatim/core"
import { Effect, Either } from "effect"
import * as MediaType from "./media-type.js"
import * as BlobPath from "./path.js"

/** The path, or `BlobStoreError` naming the broken rule. */
export const checkPath = (path: string): Effect.Effect<string, BlobStoreError> =>
  Either.match(BlobPath.validate(path), {
    onLeft: (why) => Effect.fail(new BlobStoreError({ reason: `invalid blob path: ${why}` })),
    onRight: Effect.succeed
  })

/** The path and terms of a PUT to sign, or `BlobStoreError` naming the broken rule. */
export const checkPut = (
  path: string,
  terms: PutTerms,
  maxSizeBytes: number
): Effect.Effect<void, BlobStoreError> =>
  Effect.gen(function* () {
    yield* checkPath(path)
    if (Either.isLeft(MediaType.validate(terms.contentType)))
      return yield* new BlobStoreError({
        reason: `invalid content type: ${JSON.stringify(terms.contentType)}`
      })
    if (!Number.isSafeInteger(terms.sizeBytes) || terms.sizeBytes < 0 || terms.sizeBytes > maxSizeBytes)
      return yield* new BlobStoreError({
        reason: `invalid size: ${terms.sizeBytes} (a whole number of bytes from 0 to ${maxSizeBytes})`
      })
  })
