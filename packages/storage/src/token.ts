/**
 * The local store's signed PUT tokens.
 *
 * Format: `<payload>.<signature>`, both unpadded base64url (RFC 4648 §5), so a token is one URL
 * path segment with no escaping.
 *
 * - payload: the UTF-8 JSON `{"v":1,"p":<path>,"t":<content type>,"s":<size in bytes>,"e":<expiry,
 *   epoch milliseconds>}`;
 * - signature: HMAC-SHA256 under the signing key of the ASCII text `verbatim-blob-put.v1.<payload>`
 *   (the prefix keeps these MACs apart from any other use of the key).
 *
 * Verification is strict: both parts must be canonical base64url (re-encoding the decoded bytes
 * gives the same text, so no two spellings of one token exist and every changed character is
 * refused), the MAC is compared in constant time before the payload is parsed, and the payload must
 * match its schema, carry a valid path and a media type.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Either, Redacted, Schema } from "effect"
import * as MediaType from "./media-type.js"
import * as BlobPath from "./path.js"

/** What a token binds. */
export interface PutClaims {
  readonly path: string
  readonly contentType: string
  readonly sizeBytes: number
  /** Epoch milliseconds. */
  readonly expiresAtMillis: number
}

const version = 1
const context = "verbatim-blob-put.v1."
const base64url = /^[A-Za-z0-9_-]+$/

const Payload = Schema.Struct({
  v: Schema.Literal(version),
  p: Schema.String,
  t: Schema.String,
  s: Schema.NonNegativeInt,
  e: Schema.Int
})
const decodePayload = Schema.decodeUnknownEither(Schema.parseJson(Payload))

const mac = (key: Redacted.Redacted<string>, payload: string): Buffer =>
  createHmac("sha256", Redacted.value(key))
    .update(context + payload, "ascii")
    .digest()

/** The token for the claims (the claims are taken as given: check them before signing). */
export const sign = (key: Redacted.Redacted<string>, claims: PutClaims): string => {
  const payload = Buffer.from(
    JSON.stringify({
      v: version,
      p: claims.path,
      t: claims.contentType,
      s: claims.sizeBytes,
      e: claims.expiresAtMillis
    }),
    "utf8"
  ).toString("base64url")
  return `${payload}.${mac(key, payload).toString("base64url")}`
}

/** Decodes canonical unpadded base64url only. */
const decodeCanonical = (text: string): Buffer | undefined => {
  if (!base64url.test(text)) return undefined
  const bytes = Buffer.from(text, "base64url")
  return bytes.toString("base64url") === text ? bytes : undefined
}

/** The claims of a genuine token, or why it is not one (expiry is not checked here). */
export const verify = (key: Redacted.Redacted<string>, token: string): Either.Either<PutClaims, string> => {
  const parts = token.split(".")
  if (parts.length !== 2) return Either.left("the token is not <payload>.<signature>")
  const [payload = "", signature = ""] = parts
  const payloadBytes = decodeCanonical(payload)
  const signatureBytes = decodeCanonical(signature)
  if (payloadBytes === undefined || signatureBytes === undefined)
    return Either.left("the token is not canonical base64url")
  const expected = mac(key, payload)
  if (signatureBytes.length !== expected.length || !timingSafeEqual(signatureBytes, expected))
    return Either.left("the token's signature does not match")
  return decodePayload(payloadBytes.toString("utf8")).pipe(
    Either.mapLeft(() => "the token's payload is malformed"),
    Either.filterOrLeft(
      (claims) => Either.isRight(BlobPath.validate(claims.p)) && Either.isRight(MediaType.validate(claims.t)),
      () => "the token's path or content type is invalid"
    ),
    Either.map((claims) => ({
      path: claims.p,
      contentType: claims.t,
      sizeBytes: claims.s,
      expiresAtMillis: claims.e
    }))
  )
}
