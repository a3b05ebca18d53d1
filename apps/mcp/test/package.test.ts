/**
 * The published stdio server, tested the way people run it: `verbatim-mcp` built into one
 * JavaScript file (`scripts/bundle-mcp-package.mjs`), packed with `npm pack`, installed from the
 * tarball into an empty folder (offline: the tarball declares no dependency), started with
 * `npx -y verbatim-mcp` by the SDK's `StdioClientTransport` against a running test server; it lists
 * its tools and calls one. The MCP bundle for Claude Desktop (`verbatim.mcpb`) is built by the same
 * script with `@anthropic-ai/mcpb`, its manifest validated by that package. The start time is
 * printed (never asserted: the machine is shared).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { validateManifest } from "@anthropic-ai/mcpb"
import { describe, expect, layer } from "@effect/vitest"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { runCommand } from "../../server/test/commands.js"
import { TestServer, TestServerLive } from "../../server/test/server.js"
import { call, connected, root } from "./support.js"

const packageDir = join(root, "apps/mcp/npm")
/** `verbatim-mcp` is published at the version of `@verbatim/mcp` (apps/mcp), which changesets moves. */
const version = (JSON.parse(readFileSync(join(root, "apps/mcp/package.json"), "utf8")) as { version: string })
  .version

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "90 seconds", excludeTestServices: true })(
  "the published stdio server",
  (it) => {
    describe("verbatim-mcp", () => {
      it.scoped(
        "packed, installed into an empty folder and started with npx, it lists its tools and calls one",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const { key } = yield* server.newAccount({ plan: "business", credits: 42 })
            // Off the test worker's event loop: a pack takes a while on a busy machine.
            yield* Effect.promise(() =>
              runCommand("node", ["scripts/bundle-mcp-package.mjs", "--pack", "--mcpb"], { cwd: root })
            )
            const tarball = join(packageDir, "dist", `verbatim-mcp-${version}.tgz`)
            // The tarball holds the bundle, the manifest, README, LICENSE and CHANGELOG; nothing to install.
            const listed = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" })
              .trim()
              .split("\n")
              .sort()
            expect(listed).toEqual([
              "package/CHANGELOG.md",
              "package/LICENSE",
              "package/README.md",
              "package/dist/verbatim-mcp.mjs",
              "package/package.json"
            ])
            const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as Record<
              string,
              unknown
            >
            expect(manifest.dependencies).toBeUndefined()
            expect(manifest.bin).toEqual({ "verbatim-mcp": "dist/verbatim-mcp.mjs" })

            const folder = yield* Effect.acquireRelease(
              Effect.sync(() => mkdtempSync(join(tmpdir(), "verbatim-mcp-install-"))),
              (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
            )
            yield* Effect.promise(() =>
              runCommand("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: folder })
            )
            // No TypeScript loader, no workspace: one file that node runs.
            const installed = readdirOf(join(folder, "node_modules"))
            expect(installed).toEqual(["verbatim-mcp"])

            const began = Date.now()
            const { PATH, HOME, TMPDIR, npm_config_cache } = process.env
            const connection = yield* connected(
              new StdioClientTransport({
                command: "npx",
                args: ["--offline", "-y", "verbatim-mcp"],
                cwd: folder,
                env: {
                  ...(PATH === undefined ? {} : { PATH }),
                  ...(HOME === undefined ? {} : { HOME }),
                  ...(TMPDIR === undefined ? {} : { TMPDIR }),
                  ...(npm_config_cache === undefined ? {} : { npm_config_cache }),
                  VERBATIM_API_KEY: key,
                  VERBATIM_BASE_URL: server.baseUrl
                },
                stderr: "pipe"
              })
            )
            process.stdout.write(
              `verbatim-mcp from the packed tarball: tools listed ${Date.now() - began} ms after npx started\n`
            )
            expect(connection.tools.map((tool) => tool.name)).toEqual(
              expect.arrayContaining(["transcribe_video", "get_transcript", "get_credits"])
            )
            const credits = yield* call(connection, "get_credits")
            expect(credits.structured).toMatchObject({ credits: 42, plan: "business" })

            // The MCP bundle: built, its manifest accepted by @anthropic-ai/mcpb's own validation.
            expect(existsSync(join(packageDir, "dist", "verbatim.mcpb"))).toBe(true)
            expect(validateManifest(join(packageDir, "manifest.json"))).toBe(true)
            const mcpbManifest = JSON.parse(readFileSync(join(packageDir, "manifest.json"), "utf8")) as {
              version: string
              user_config: Record<string, { sensitive?: boolean }>
            }
            expect(mcpbManifest.version).toBe(version)
            expect(mcpbManifest.user_config.api_key?.sensitive).toBe(true)
            expect(Object.keys(mcpbManifest.user_config)).toContain("base_url")
          }),
        240_000
      )
    })
  }
)

const readdirOf = (dir: string) =>
  execFileSync("ls", ["-A", dir], { encoding: "utf8" })
    .trim()
    .split("\n")
    .filter((name) => name !== ".package-lock.json" && name !== ".bin")
