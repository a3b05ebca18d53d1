/**
 * s3rver (3.7.1) does not compute SigV4 signatures: it accepts any presigned V4 URL whose access key
 * it knows and whose `X-Amz-Date + X-Amz-Expires` is not past, whatever the request's Content-Type
 * and Content-Length. This proxy, put in front of it for the tests, checks presigned (query-string)
 * SigV4 requests as S3 does (AWS's "Authenticating Requests: Using Query Parameters"): the
 * canonical request from the actual method, path, query and the values of the signed headers, the
 * string to sign, the derived key, the signature; a signed header missing from the request, a
 * wrong signature or an expired URL answers 403 and nothing reaches s3rver. Other requests (the
 * SDK's header-signed calls) pass through unchecked.
 *
 * Its first test is that URLs the SDK presigns pass it: the canonicalisation agrees with the
 * SDK's. What it does not reproduce of S3: its time-outs for bodies shorter than declared (Node's
 * parser waits, and the test sees the client give up instead), and the 411 for chunked PUTs (here
 * the missing signed Content-Length gives 403).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"

const rfc3986 = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac("sha256", key).update(data, "utf8").digest()

/** Why the presigned request is refused, or undefined when it is genuine. */
export const checkPresigned = (
  req: IncomingMessage,
  secrets: ReadonlyMap<string, string>,
  now: Date
): string | undefined => {
  const url = new URL(req.url ?? "/", "http://proxy.invalid")
  const query = url.searchParams
  const credential = query.get("X-Amz-Credential") ?? ""
  const [accessKeyId = "", ...scopeParts] = credential.split("/")
  const secret = secrets.get(accessKeyId)
  if (secret === undefined) return "InvalidAccessKeyId"
  const amzDate = query.get("X-Amz-Date") ?? ""
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate)
  if (match === null) return "AuthorizationQueryParametersError: X-Amz-Date"
  const [, y, mo, d, h, mi, s] = match
  const signedAt = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  const expires = Number(query.get("X-Amz-Expires"))
  if (!Number.isInteger(expires) || expires < 1 || expires > 604_800)
    return "AuthorizationQueryParametersError: X-Amz-Expires"
  if (now.getTime() > signedAt + expires * 1000) return "AccessDenied: Request has expired"
  const signedHeaders = (query.get("X-Amz-SignedHeaders") ?? "").split(";")
  const canonicalHeaders: Array<string> = []
  for (const name of signedHeaders) {
    const value = req.headers[name]
    if (typeof value !== "string") return `SignatureDoesNotMatch: signed header ${name} is missing`
    canonicalHeaders.push(`${name}:${value.trim().replace(/\s+/g, " ")}\n`)
  }
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&")
  const canonicalRequest = [
    req.method ?? "",
    url.pathname,
    canonicalQuery,
    canonicalHeaders.join(""),
    signedHeaders.join(";"),
    query.get("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD"
  ].join("\n")
  const scope = scopeParts.join("/")
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    createHash("sha256").update(canonicalRequest, "utf8").digest("hex")
  ].join("\n")
  const [date = "", region = "", service = "", terminator = ""] = scopeParts
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), terminator)
  const expected = hmac(key, stringToSign)
  const given = Buffer.from(query.get("X-Amz-Signature") ?? "", "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? undefined
    : "SignatureDoesNotMatch"
}

const refuse = (req: IncomingMessage, res: ServerResponse, why: string): void => {
  const code = why.split(":")[0] ?? "AccessDenied"
  res.writeHead(403, { "content-type": "application/xml", connection: "close" })
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${why}</Message></Error>`
  )
  req.resume()
}

/** Starts the proxy in front of `target` (host:port); answers its base URL; stops with the scope. */
export const startProxy = (
  target: { readonly host: string; readonly port: number },
  secrets: ReadonlyMap<string, string>
): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<ReturnType<typeof createServer>>((resume) => {
      const server = createServer((req, res) => {
        if (new URL(req.url ?? "/", "http://proxy.invalid").searchParams.has("X-Amz-Algorithm")) {
          const why = checkPresigned(req, secrets, new Date())
          if (why !== undefined) return refuse(req, res, why)
        }
        const upstream = request(
          {
            host: target.host,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
            agent: false
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
          }
        )
        upstream.on("error", () => res.destroy())
        req.on("error", () => upstream.destroy())
        req.pipe(upstream)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))
