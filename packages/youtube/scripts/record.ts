/**
 * `pnpm --filter @verbatim/youtube record <url>...`: records the answers the adapter gets from
 * today's YouTube for each video, playlist or channel, scrubbed (cookies, visitor data, IP
 * addresses, tokens), into `test/fixtures/recorded-live/<date>-<name>/`: one file per answer and
 * `manifest.json`. Needs internet access; the README says how a recording becomes a test.
 */
import { fileURLToPath } from "node:url"
import { Console, Effect, Either } from "effect"
import { recordTargets, targetOf, writeRecording } from "../src/recording.js"

const folder = fileURLToPath(new URL("../test/fixtures/recorded-live/", import.meta.url))

const slug = (input: string) =>
  input
    .replace(/^https?:\/\/(www\.)?/, "")
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .slice(0, 60)

const program = Effect.gen(function* () {
  const inputs = process.argv.slice(2).filter((a) => a !== "--")
  if (inputs.length === 0) {
    yield* Console.error("usage: pnpm --filter @verbatim/youtube record <video, playlist or channel URL>...")
    return yield* Effect.fail(2)
  }
  const date = new Date().toISOString().slice(0, 10)
  for (const input of inputs) {
    const target = targetOf(input)
    if (Either.isLeft(target)) {
      yield* Console.error(target.left)
      continue
    }
    const exchanges = yield* recordTargets([target.right], (request) => globalThis.fetch(request))
    const dir = `${folder}${date}-${slug(input)}`
    yield* writeRecording(dir, exchanges)
    yield* Console.log(`${input}: ${exchanges.length} answers recorded in ${dir}`)
  }
})

Effect.runPromiseExit(program).then((exit) => {
  process.exitCode = exit._tag === "Success" ? 0 : 1
})
