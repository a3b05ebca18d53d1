/**
 * Core's request policy, one for every entry point (REST handlers and hot routes, GPT Actions, MCP
 * tools), on the production wiring: `Idempotent`'s use cases take the caller's key and apply
 * idempotency themselves, and `admit` answers the rate limit's verdict after reporting it.
 */
import { expect, layer } from "@effect/vitest"
import {
  Access,
  admit,
  answerValues,
  Idempotency,
  Idempotent,
  idempotentEndpoints,
  PreEncodedCompleted,
  Transcribe
} from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect, Option, Schema } from "effect"
import {
  books,
  createAccount,
  expectApiError,
  suiteOptions,
  transcribeRequest,
  useCasesLayer,
  videos
} from "./support.js"

layer(useCasesLayer(), suiteOptions)("core's request policy", (it) => {
  it.effect(
    "Idempotent.transcribe under one key answers the first answer again and charges once; another request with the key is 409",
    () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency
        const transcribe = Idempotent.transcribe(idempotency, yield* Transcribe)
        const account = yield* createAccount({ credits: 10 })
        const request = transcribeRequest({ video: videos.manualOnly, mode: "captions_only" })
        const first = yield* transcribe(account, request, "policy-key-1")
        const again = yield* transcribe(account, request, "policy-key-1")
        expect(again).toEqual(first)
        expect((yield* books(account)).balance).toBe(9)
        yield* expectApiError(
          transcribe(account, transcribeRequest({ video: videos.autoOnly }), "policy-key-1"),
          "conflict"
        )
      })
  )

  it.effect(
    "a key used by one entry point answers the other's first answer: the request is encoded one way",
    () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency
        const account = yield* createAccount({ credits: 10 })
        const request = transcribeRequest({ video: videos.manualAndAuto, mode: "captions_only" })
        const first = yield* Idempotent.transcribe(idempotency, yield* Transcribe)(
          account,
          request,
          "policy-key-2"
        )
        // Any other caller of the same endpoint and key, with the request encoded as the contract does.
        const other = yield* idempotency.run(
          account,
          idempotentEndpoints.transcribe,
          "policy-key-2",
          () => Schema.encodeSync(Api.TranscribeRequest)(request),
          Api.TranscribeResponse,
          Effect.dieMessage("the kept answer must be served")
        )
        expect(other).toEqual(first)
      })
  )

  it.effect(
    "Idempotent.transcribePreEncoded keeps the plain answer under the key: REST and MCP replay the same JSON",
    () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency
        const transcribe = yield* Transcribe
        const account = yield* createAccount({ credits: 10 })
        const request = transcribeRequest({ video: videos.manualOnly, mode: "captions_only" })
        // Owned first, so that the keyed answer serves its segments as their stored text.
        yield* transcribe.transcribe(account, request)
        const first = yield* Idempotent.transcribePreEncoded(idempotency, transcribe)(
          account,
          request,
          "policy-key-3"
        )
        if (!(first instanceof PreEncodedCompleted)) return expect.fail(JSON.stringify(first))
        expect(Option.isSome(first.segmentsJson)).toBe(true)
        const encode = Schema.encodeSync(Api.TranscribeResponse)
        const expected = JSON.stringify(encode(answerValues(first)))
        const overMcp = yield* Idempotent.transcribe(idempotency, transcribe)(
          account,
          request,
          "policy-key-3"
        )
        expect(JSON.stringify(encode(overMcp))).toBe(expected)
        const again = yield* Idempotent.transcribePreEncoded(idempotency, transcribe)(
          account,
          request,
          "policy-key-3"
        )
        expect(again).toBeInstanceOf(Api.TranscribeCompleted)
        expect(JSON.stringify(encode(answerValues(again)))).toBe(expected)
      })
  )

  it.effect("a key of another shape is refused by the use case, naming Idempotency-Key", () =>
    Effect.gen(function* () {
      const account = yield* createAccount({ credits: 10 })
      const transcribe = Idempotent.transcribe(yield* Idempotency, yield* Transcribe)
      const request = transcribeRequest({ video: videos.manualOnly, mode: "captions_only" })
      const error = yield* expectApiError(transcribe(account, request, "with space"), "invalid_request")
      expect(error.message).toContain("Idempotency-Key")
      expect((yield* books(account)).balance).toBe(10)
    })
  )

  it.effect("admit reports every verdict, allowed or refused, before it answers; refused is 429", () =>
    Effect.gen(function* () {
      const access = yield* Access
      const account = yield* createAccount({ plan: "free" })
      const reported: Array<boolean> = []
      const report = (verdict: { readonly allowed: boolean }) =>
        Effect.sync(() => reported.push(verdict.allowed))
      const first = yield* admit(access, account, 1, report)
      expect(first.allowed).toBe(true)
      const refused = yield* expectApiError(
        admit(access, account, first.limit, report),
        "rate_limit_exceeded"
      )
      expect(refused.details.retry_after_seconds).toBeGreaterThan(0)
      expect(reported).toEqual([true, false])
    })
  )
})
