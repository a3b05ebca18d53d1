/**
 * The hot routes: GET /transcripts, GET /credits and POST /transcribe, the requests a client sends
 * most, served without HttpApi's router and endpoint machinery (about 200 effect operations of
 * fixed cost per request, whatever the endpoint does). Each answers exactly what its
 * HttpApi endpoint answers, in the same order of checks:
 *
 * 1. authentication and the rate limit (`authorize`, the middleware's own work, with its headers);
 * 2. the query or the body, decoded with the endpoint's own schema; a rejection is the same
 *    `invalid_request` in the same plain words (`Errors.invalidRequest`), answered by `answerFailures`;
 * 3. the same use case, through core's boundary (`useCase`);
 * 4. the same body and status (the success schema's encoding, or the hand encodings HttpApi's
 *    handlers already answer with).
 *
 * A request is hot only when its method is the route's and its path is the route's, byte for byte
 * (no trailing slash, no percent-encoding, no `;`): anything else goes on to HttpApi, which answers
 * it as before. The query string is parsed by the router's own parser (`find-my-way-ts`), so a
 * repeated or odd parameter decodes the same on both paths. `apps/server/test/hot-routes.test.ts`
 * sends the same requests through both paths and requires the same answers.
 */
import { type HttpApp, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { basePath, IdempotencyHeaders, TranscriptListParams } from "@verbatim/contract"
import { Access, Balance, Idempotency, StoredTranscripts, Transcribe, WebSessions } from "@verbatim/core"
import { Api, Errors } from "@verbatim/domain"
import { Effect, Option, type ParseResult, Schema, Tracer } from "effect"
import * as QueryString from "find-my-way-ts/QueryString"
import { transcribeAnswer } from "./groups/transcribe.js"
import { authorize } from "./security.js"
import { transcriptListResponse } from "./transcript-list.js"
import { useCase } from "./use-case.js"

const transcriptsPath = `${basePath}/transcripts`
const creditsPath = `${basePath}/credits`
const transcribePath = `${basePath}/transcribe`

/** The query string of a request to `path` exactly, or `undefined` when the request is not to it. */
const queryOf = (url: string, path: string): string | undefined => {
  if (!url.startsWith(path)) return undefined
  if (url.length === path.length) return ""
  return url.charCodeAt(path.length) === 63 /* ? */ ? url.slice(path.length + 1) : undefined
}

const decodeListParams = Schema.decodeUnknown(TranscriptListParams)
const encodeCredits = Schema.encode(Api.CreditsResponse)
const decodeTranscribe = Schema.decodeUnknown(Api.TranscribeRequest)
const decodeIdempotency = Schema.decodeUnknown(IdempotencyHeaders)
const encodeTranscribe = Schema.encode(Api.TranscribeResponse)

/** A query or body the endpoint's schema rejects, failed in the plain words HttpApi answers with. */
const asDecodeError = <A, R>(effect: Effect.Effect<A, ParseResult.ParseError, R>) =>
  Effect.mapError(effect, Errors.invalidRequest)

/** The span attribute the router sets for a route, when a span is recording. */
const routeAttribute = (template: string) =>
  Effect.map(Effect.serviceOption(Tracer.ParentSpan), (span) => {
    if (span._tag === "Some" && span.value._tag === "Span") span.value.attribute("http.route", template)
  })

/**
 * Wraps the application (HttpApi with its policy) so that the hot routes skip it. The use cases are
 * read once, when the server is built.
 */
export const makeHotRoutes = Effect.gen(function* () {
  const access = yield* Access
  const balance = yield* Balance
  const transcripts = yield* StoredTranscripts
  const transcribe = yield* Transcribe
  const idempotency = yield* Idempotency
  const sessions = Option.getOrUndefined(yield* Effect.serviceOption(WebSessions))

  const list = (request: HttpServerRequest.HttpServerRequest, query: string) =>
    Effect.gen(function* () {
      yield* routeAttribute(transcriptsPath)
      const account = yield* authorize(access, request, sessions)
      // Every parameter of the query is one string; a repeated one arrives as a list, and the
      // schema rejects it, as HttpApi's decoding does (which only wraps lone values of list fields).
      const params = yield* asDecodeError(decodeListParams(QueryString.parse(query)))
      return yield* transcriptListResponse(yield* useCase(transcripts.list(account, params)))
    })

  const credits = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      yield* routeAttribute(creditsPath)
      const account = yield* authorize(access, request, sessions)
      const answer = yield* useCase(balance.credits(account))
      return HttpServerResponse.unsafeJson(yield* Effect.orDie(encodeCredits(answer)))
    })

  // The endpoint reads the body, then the headers; a body that is not JSON is a defect of the
  // request (`answerFailures` answers it 400, as HttpApi's `orDie` does).
  const transcribeRoute = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      yield* routeAttribute(transcribePath)
      const account = yield* authorize(access, request, sessions)
      const payload = yield* asDecodeError(Effect.flatMap(Effect.orDie(request.json), decodeTranscribe))
      const headers = yield* asDecodeError(decodeIdempotency(request.headers))
      const answer = yield* transcribeAnswer(transcribe, idempotency, account, headers, payload)
      if (HttpServerResponse.isServerResponse(answer)) return answer
      // The success schema's statuses: 202 while processing, 200 for every other answer.
      return yield* HttpServerResponse.json(yield* Effect.orDie(encodeTranscribe(answer)), {
        status: answer.status === "processing" ? 202 : 200
      })
    })

  /** The hot route of a request, or `undefined` when HttpApi answers it. */
  return (request: HttpServerRequest.HttpServerRequest): HttpApp.Default<unknown> | undefined => {
    if (request.method === "GET") {
      const query = queryOf(request.url, transcriptsPath)
      // Interruptible, as the router runs a route: a client that hangs up stops its request.
      if (query !== undefined) return Effect.interruptible(list(request, query))
      if (request.url === creditsPath) return Effect.interruptible(credits(request))
    } else if (request.method === "POST" && request.url === transcribePath) {
      return Effect.interruptible(transcribeRoute(request))
    }
    return undefined
  }
})
