/** GET /ping: the health check, the one endpoint without authentication. */
import { Schema } from "effect"

export class HealthResponse extends Schema.Class<HealthResponse>("HealthResponse")(
  {
    status: Schema.Literal("ok"),
    /** The server's clock, as an ISO 8601 date-time. */
    timestamp: Schema.DateTimeUtc
  },
  { description: "The service is up" }
) {}
