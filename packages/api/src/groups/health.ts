/** GET /ping: the health check, the one endpoint without authentication. */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { DateTime, Effect } from "effect"
import { apiId, basePath } from "../base.js"
import { InternalError } from "../errors.js"

export class HealthGroup extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("ping", "/ping")
      .addSuccess(Api.HealthResponse)
      .annotate(OpenApi.Summary, "Health check (no authentication)")
  )
  .addError(InternalError)
  .annotate(OpenApi.Description, "Whether the service is up")
  .prefix(basePath) {}

export const HealthHttp = HttpApiBuilder.group(HttpApi.make(apiId).add(HealthGroup), "health", (handlers) =>
  handlers.handle("ping", () =>
    Effect.map(DateTime.now, (timestamp) => new Api.HealthResponse({ status: "ok", timestamp }))
  )
)
