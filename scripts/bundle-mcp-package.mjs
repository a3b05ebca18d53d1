/**
 * `node scripts/bundle-mcp-package.mjs`: the published stdio server `verbatim-mcp`
 * (`apps/mcp/npm/`), one JavaScript file with every dependency inside
 * (`apps/mcp/npm/dist/verbatim-mcp.mjs`), so `npx -y verbatim-mcp` installs nothing else and starts
 * with plain node, no TypeScript loader. Its entry is `apps/mcp/src/package.ts` (REST only). Unlike
 * `bundle.mjs`, which keeps other packages at the files of this checkout, nothing stays external
 * here but Node's own modules: the file must run wherever npm puts it.
 * Then `npm pack` in `apps/mcp/npm` makes the tarball (`--pack`), and `--mcpb` builds the MCP bundle
 * for Claude Desktop (`apps/mcp/npm/verbatim.mcpb`) with `@anthropic-ai/mcpb`.
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

/**
 * The HTTP transport's session (`packages/mcp/src/http.ts` loads it with `import()` at the first
 * MCP request) is the API server's, never run on stdio: a module reached by `import()` makes
 * esbuild wrap it and everything it imports in lazy initialisers, which the workspace packages'
 * `sideEffects: false` then lets it skip (exports left unset). It is replaced by an empty module.
 */
const noHttpSession = {
  name: "no-http-session",
  setup(build) {
    build.onResolve({ filter: /^\.\/session\.js$/ }, (args) =>
      args.kind === "dynamic-import" && args.importer.endsWith("packages/mcp/src/http.ts")
        ? { path: "http-session", namespace: "no-http-session" }
        : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "no-http-session" }, () => ({
      contents: 'export const handle = () => { throw new Error("no HTTP transport on stdio") }',
      loader: "js"
    }))
  }
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const packageDir = join(root, "apps/mcp/npm")
const outfile = join(packageDir, "dist/verbatim-mcp.mjs")

// `verbatim-mcp` is `@verbatim/mcp` (apps/mcp) published: its version is that package's, which
// changesets moves (`pnpm changeset version`); the published package.json follows it here.
// The MCP bundle's manifest (`manifest.json`) carries the same version.
const version = JSON.parse(readFileSync(join(root, "apps/mcp/package.json"), "utf8")).version
for (const name of ["package.json", "manifest.json"]) {
  const file = join(packageDir, name)
  const text = readFileSync(file, "utf8")
  // Only the version's value changes: the file keeps its layout (Biome's).
  if (JSON.parse(text).version !== version) {
    writeFileSync(file, text.replace(/"version":\s*"[^"]*"/, `"version": ${JSON.stringify(version)}`))
  }
}

// The published package's changelog is the one changesets writes for `@verbatim/mcp`.
copyFileSync(join(root, "apps/mcp/CHANGELOG.md"), join(packageDir, "CHANGELOG.md"))

mkdirSync(dirname(outfile), { recursive: true })
await build({
  entryPoints: [join(root, "apps/mcp/src/package.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  conditions: ["@verbatim/source"],
  minify: true,
  plugins: [noHttpSession],
  legalComments: "eof",
  logLevel: "warning",
  // Packages written as CommonJS call `require` for Node's modules: give the ES module one.
  banner: {
    js: [
      "#!/usr/bin/env node",
      'import { createRequire as __verbatimRequire } from "node:module";',
      "const require = __verbatimRequire(import.meta.url);"
    ].join("\n")
  }
})

const args = process.argv.slice(2)
if (args.includes("--pack")) {
  // `--ignore-scripts`: the package's `prepack` is this very script, just run.
  execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", join(packageDir, "dist")], {
    cwd: packageDir,
    stdio: ["ignore", "inherit", "inherit"]
  })
}
if (args.includes("--mcpb")) {
  const staging = join(packageDir, "dist/mcpb")
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(join(staging, "server"), { recursive: true })
  copyFileSync(outfile, join(staging, "server/verbatim-mcp.mjs"))
  copyFileSync(join(packageDir, "manifest.json"), join(staging, "manifest.json"))
  const mcpb = join(root, "node_modules/.bin/mcpb")
  execFileSync(mcpb, ["validate", join(staging, "manifest.json")], {
    stdio: ["ignore", "inherit", "inherit"]
  })
  execFileSync(mcpb, ["pack", staging, join(packageDir, "dist/verbatim.mcpb")], {
    stdio: ["ignore", "inherit", "inherit"]
  })
}
