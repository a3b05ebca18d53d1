/** Helpers of the engine's tests: a fresh stand-in and the engine talking to it, and test audio. */
import { FetchHttpClient } from "@effect/platform"
import { type AudioInput, AudioReadError } from "@verbatim/core"
import type { Asr } from "@verbatim/domain"
import { effectiveOptions, type RawAsrOptions } from "@verbatim/testkit"
import { Effect, Stream } from "effect"
import type { AssemblyAiSettings } from "../src/config.js"
import * as AssemblyAiSpeechToText from "../src/engine.js"
import {
  audioInput,
  type StandIn,
  type StandInOptions,
  standIn,
  standInSettings,
  wav
} from "../src/testing.js"

export const sentence = "Hello world, this is a test of the speech engine. Um, it hears every word."

/** Three seconds of quiet noise in a 16 kHz mono 16-bit WAV file. */
export const clipBytes = wav({ durationMs: 3000, noise: true })
export const clip = (): AudioInput => audioInput(clipBytes, { name: "test clip" })

export const notAudio = (): AudioInput =>
  audioInput(new TextEncoder().encode("this is not audio at all, only text ".repeat(20)), {
    name: "not audio"
  })

/** Audio whose stream breaks after `before` bytes. */
export const breaking = (retryable: boolean, before = 64): AudioInput => ({
  name: "a stream that breaks",
  mimeType: "audio/wav",
  contentLength: null,
  durationSeconds: 3,
  bytes: Stream.concat(
    Stream.make(clipBytes.subarray(0, before)),
    Stream.fail(new AudioReadError({ reason: "the source went away", retryable }))
  )
})

export const options = (raw: RawAsrOptions = {}): Asr.EffectiveAsrOptions => effectiveOptions(raw)

export type Engine = AssemblyAiSpeechToText.AssemblyAiSpeechToTextService

/** Runs `f` with a fresh stand-in and the engine aimed at it. */
export const withEngine = <A, E>(
  f: (engine: Engine, server: StandIn) => Effect.Effect<A, E>,
  standInOptions: StandInOptions = {},
  overrides: Partial<Omit<AssemblyAiSettings, "apiKey" | "baseUrl">> & { readonly apiKey?: string } = {}
): Effect.Effect<A, E> =>
  Effect.scoped(
    Effect.gen(function* () {
      const server = yield* standIn({ recognise: () => sentence, ...standInOptions })
      const { apiKey, ...rest } = overrides
      const settings = standInSettings(apiKey === undefined ? server : { url: server.url, apiKey }, rest)
      const engine = yield* AssemblyAiSpeechToText.make(settings).pipe(Effect.provide(FetchHttpClient.layer))
      return yield* f(engine, server)
    })
  )

/** The requests the stand-in received on one route. */
export const on = (server: StandIn, route: string) => server.requests.filter((r) => r.route === route)
