/**
 * Why the stdio command cannot run the use cases in its own process, if it cannot: the embedded
 * data folder (PGlite, the default without DATABASE_URL) admits one process, and that process is
 * the server. The assistant then reaches the running server's REST API instead.
 */
import { Option } from "effect"

export const refusal = (settings: {
  readonly database: { readonly url: Option.Option<unknown>; readonly dataDir: string }
}): Option.Option<string> =>
  Option.isNone(settings.database.url)
    ? Option.some(
        `the embedded data folder ${settings.database.dataDir} admits one process, the server: set VERBATIM_BASE_URL to the running server (e.g. VERBATIM_BASE_URL=http://127.0.0.1:3000) so the tools call its API, or DATABASE_URL to run them in this process on PostgreSQL`
      )
    : Option.none()
