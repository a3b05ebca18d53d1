/**
 * Where the stdio command's tools run when VERBATIM_BASE_URL does not say: the embedded data folder
 * (PGlite, the default without DATABASE_URL) admits one process, and that process is the server, so
 * on it the tools call the running server's REST API, at the address the server's own PORT and HOST
 * give (`localServerUrl`); with DATABASE_URL they run the use cases in this process.
 */
import { localServerUrl, type ServerAddress } from "@verbatim/runtime"
import { Option } from "effect"

/** The running server's URL to call, when the database is the embedded data folder. */
export const embeddedServerUrl = (
  settings: { readonly database: { readonly url: Option.Option<unknown> } },
  address: ServerAddress
): Option.Option<string> =>
  Option.isNone(settings.database.url) ? Option.some(localServerUrl(address)) : Option.none()
