/**
 * `node scripts/bundle.mjs <server|worker|admin>`: the app as compiled JavaScript,
 * `apps/<app>/dist/<name>.mjs` (and its chunks: code reached only by `import()`), which `pnpm start`, `pnpm worker` and `pnpm admin` run with plain
 * `node` (no TypeScript loader: less memory and a faster start). The workspace packages are bundled
 * from their TypeScript sources, with Effect's packages; every other package stays external,
 * imported from the exact file that Node would load for it where it is installed, so the bundle
 * runs wherever this checkout is; two packages that a server almost never runs (`ws`, `fast-check`)
 * are stand-ins that load them at first use (`bundle-externals.mjs`).
 * `import.meta.url` in a workspace module keeps naming that module's own file (assets next to the
 * sources, such as the demo catalogue, are found as before). Bundling takes about a second, so the
 * commands bundle on every start. Each file is written whole and then renamed into place, so
 * processes that bundle at once (several servers started together) never read half a bundle.
 * Source maps are written beside the bundles (without the sources' text, which the checkout holds)
 * but the commands run without `--enable-source-maps`: Node would load and keep every map of the
 * process (about 40 MB of heap for the server). To read stack traces in the sources' terms, run the
 * bundle with `node --enable-source-maps`.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { externals } from "./bundle-externals.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const apps = {
  server: ["apps/server/src/main.ts", "apps/server/dist", "server"],
  worker: ["apps/worker/src/main.ts", "apps/worker/dist", "worker"],
  admin: ["apps/server/src/admin.ts", "apps/server/dist", "admin"]
}
const app = apps[process.argv[2] ?? ""]
if (app === undefined) {
  process.stderr.write(`usage: node scripts/bundle.mjs <${Object.keys(apps).join("|")}>\n`)
  process.exit(2)
}

const result = await build({
  entryPoints: { [app[2]]: join(root, app[0]) },
  outdir: join(root, app[1]),
  outExtension: { ".js": ".mjs" },
  // Code reached only through `import()` (engines chosen by settings) goes into chunks of its own,
  // loaded with their packages only when a setting asks for them.
  splitting: true,
  chunkNames: `chunks/${app[2]}-[hash]`,
  write: false,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  conditions: ["@verbatim/source"],
  sourcemap: "linked",
  sourcesContent: false,
  logLevel: "warning",
  plugins: [externals]
})

for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true })
  const partial = `${file.path}.${process.pid}.partial`
  writeFileSync(partial, file.contents)
  renameSync(partial, file.path)
}
