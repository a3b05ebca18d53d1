/**
 * The typed client works from a plain Node project, with no server code and no TypeScript: the
 * contract and the domain are built (`tsc -p tsconfig.build.json`) and packed as npm would publish
 * them (`pnpm pack`, which writes the catalogue's versions in place of `catalog:` and `workspace:*`),
 * installed with `npm install` into an empty folder (effect and @effect/platform come from the npm
 * registry), and a plain `node` script there calls a running server: GET /credits and POST
 * /transcribe on the demo platform, with an Idempotency-Key.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { runCommand } from "./commands.js"
import { TestServer, TestServerLive } from "./server.js"
import { repositoryRoot } from "./server-process.js"
import { oldAccount, videos } from "./support.js"

/** Builds and packs a workspace package into `into`; the tarball's path. */
const pack = async (name: string, into: string): Promise<string> => {
  const dir = join(repositoryRoot, "packages", name)
  await runCommand(join(repositoryRoot, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], { cwd: dir })
  await runCommand("pnpm", ["pack", "--pack-destination", into], { cwd: dir })
  const tarball = readdirSync(into).find(
    (file) => file.startsWith(`verbatim-${name}-`) && file.endsWith(".tgz")
  )
  if (tarball === undefined) throw new Error(`no tarball of ${name} in ${into}`)
  return join(into, tarball)
}

const script = `
import { FetchHttpClient } from "@effect/platform"
import { idempotencyHeaders, makeClient } from "@verbatim/contract"
import { Api } from "@verbatim/domain"
import { Effect } from "effect"

const program = Effect.gen(function* () {
  const client = yield* makeClient({ baseUrl: process.env.VERBATIM_URL, apiKey: process.env.VERBATIM_KEY })
  const before = yield* client.credits.credits()
  const payload = new Api.TranscribeRequest({ video: process.env.VIDEO, mode: "captions_only" })
  const answer = yield* client.transcribe.transcribe({ payload, headers: idempotencyHeaders("from-node-1") })
  const again = yield* client.transcribe.transcribe({ payload, headers: idempotencyHeaders("from-node-1") })
  const after = yield* client.credits.credits()
  return { before: before.credits, status: answer.status, same: again.job_id === answer.job_id, after: after.credits }
})
console.log(JSON.stringify(await Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))))
`

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "600 seconds", excludeTestServices: true })(
  "the typed client from a plain Node project",
  (it) => {
    it.effect(
      "packed @verbatim/contract and @verbatim/domain, installed with npm, call a running server from plain node",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
          const project = mkdtempSync(join(tmpdir(), "verbatim-client-"))
          const tarballs = [
            yield* Effect.promise(() => pack("domain", project)),
            yield* Effect.promise(() => pack("contract", project))
          ]
          writeFileSync(
            join(project, "package.json"),
            JSON.stringify({ name: "client", private: true, type: "module" })
          )
          yield* Effect.promise(() =>
            runCommand("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], {
              cwd: project
            })
          )
          writeFileSync(join(project, "call.mjs"), script)
          // Not a synchronous spawn: the server answers from this very process.
          const output = yield* Effect.async<string, Error>((resume) => {
            execFile(
              "node",
              ["call.mjs"],
              {
                cwd: project,
                encoding: "utf8",
                env: {
                  ...process.env,
                  VERBATIM_URL: server.baseUrl,
                  VERBATIM_KEY: key,
                  VIDEO: videos.manualAndAuto
                }
              },
              (error, stdout, stderr) =>
                resume(
                  error === null
                    ? Effect.succeed(stdout)
                    : Effect.fail(new Error(`${error.message}\n${stderr}`))
                )
            )
          })
          expect(JSON.parse(output)).toEqual({ before: 5, status: "completed", same: true, after: 4 })
        }),
      600_000
    )
  }
)
