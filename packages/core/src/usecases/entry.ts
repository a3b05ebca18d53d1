/**
 * The policy every entry point (the REST handlers and hot routes, GPT Actions, the MCP tools) applies
 * around a request, written once so that an entry point only translates its request and its answer:
 *
 * - `admit`: the rate limit's verdict on `requests` taken at once from the account's bucket (all its
 *   keys share it), reported to the entry point (HTTP writes its `RateLimit-*` headers from it) and
 *   then answered: allowed passes, refused is 429 `rate_limit_exceeded` (`admitted`).
 * - `Idempotent`: the four idempotent use cases (transcribe, batch, playlist and channel resolves),
 *   each under its endpoint's name with its request encoded one way, taking the caller's
 *   `Idempotency-Key` (or the MCP tools' `idempotency_key`): a key sent over REST and again over MCP
 *   with the same request answers the first answer.
 */
import { Api, type Errors } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { admitted } from "../boundary.js"
import type { PersistenceError } from "../errors.js"
import type { Account } from "../ports/accounts.js"
import type { RateVerdict } from "../ports/rate-limiter.js"
import type { CollectionWork } from "./collections.js"
import { type Idempotency, idempotentEndpoints } from "./idempotency.js"
import { answerValues, type TranscribeAnswer } from "./payload.js"
import type { Access, BatchWork, Transcribe } from "./tags.js"

/**
 * Takes `requests` from the account's rate limit, hands the verdict to `report` (allowed or not), then
 * admits the request or refuses it; the verdict is the answer.
 */
export const admit = (
  access: Access["Type"],
  account: Account,
  requests = 1,
  report: (verdict: RateVerdict) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<RateVerdict, Errors.ApiError> =>
  Effect.flatMap(access.takeRequest(account, requests), (verdict) =>
    Effect.as(Effect.zipRight(report(verdict), admitted(verdict, requests)), verdict)
  )

/** An idempotent use case: the caller's account, the request and the caller's key (none: it just runs). */
export type IdempotentUseCase<Request, Answer> = (
  account: Account,
  request: Request,
  key: string | undefined
) => Effect.Effect<Answer, Errors.ApiError | PersistenceError>

const keyed =
  <Service, R, RI, A, I>(
    endpoint: string,
    request: Schema.Schema<R, RI>,
    answer: Schema.Schema<A, I>,
    work: (
      service: Service,
      account: Account,
      request: R
    ) => Effect.Effect<A, Errors.ApiError | PersistenceError>
  ) =>
  (idempotency: Idempotency, service: Service): IdempotentUseCase<R, A> =>
  (account, value, key) =>
    idempotency.run(
      account,
      endpoint,
      key,
      () => Schema.encodeSync(request)(value),
      answer,
      work(service, account, value)
    )

/**
 * A POST /transcribe answer as a key keeps it: a `PreEncodedCompleted` as its plain answer
 * (`answerValues`), so the kept JSON is the one `Idempotent.transcribe` keeps for the same key (REST
 * and MCP share keys); a kept answer comes back plain. The answers are ours: the declaration checks
 * no more than that it is one.
 */
const KeptTranscribeAnswer: Schema.Schema<TranscribeAnswer, typeof Api.TranscribeResponse.Encoded> =
  Schema.transform(
    Api.TranscribeResponse,
    Schema.declare(
      (value: unknown): value is TranscribeAnswer => typeof value === "object" && value !== null
    ),
    { strict: true, decode: (response) => response, encode: answerValues }
  )

/** The idempotent use cases, each made from `Idempotency` and the use case it keys. */
export const Idempotent = {
  transcribe: keyed(
    idempotentEndpoints.transcribe,
    Api.TranscribeRequest,
    Api.TranscribeResponse,
    (transcribe: Transcribe["Type"], account, request) => transcribe.transcribe(account, request)
  ),
  /**
   * POST /transcribe for an entry point that writes the answer's JSON itself (the REST endpoint and
   * its hot route): as `Transcribe.transcribePreEncoded` answers (an owned transcript's segments as
   * their stored text); under a key, kept as `transcribe` keeps it, and a replay is the plain answer.
   */
  transcribePreEncoded: keyed(
    idempotentEndpoints.transcribe,
    Api.TranscribeRequest,
    KeptTranscribeAnswer,
    (transcribe: Transcribe["Type"], account, request) => transcribe.transcribePreEncoded(account, request)
  ),
  createBatch: keyed(
    idempotentEndpoints.batch,
    Api.BatchRequest,
    Api.BatchProcessing,
    (batches: BatchWork["Type"], account, request) => batches.create(account, request)
  ),
  resolvePlaylist: keyed(
    idempotentEndpoints.playlistResolve,
    Api.PlaylistResolveRequest,
    Api.PlaylistResolveResponse,
    (collections: CollectionWork, account, request) => collections.resolvePlaylist(account, request)
  ),
  resolveChannel: keyed(
    idempotentEndpoints.channelResolve,
    Api.ChannelResolveRequest,
    Api.ChannelResolveResponse,
    (collections: CollectionWork, account, request) => collections.resolveChannel(account, request)
  )
} as const
