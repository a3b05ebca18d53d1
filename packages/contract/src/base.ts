/** What every group of the contract shares: the API's id and the version prefix of every path. */

/** The id of the `HttpApi`; every group's handlers are registered under it. */
export const apiId = "verbatim" as const

/** Every path of the Transcript Service API v2 starts with this (`{base_url}` ends with it). */
export const basePath = "/api/v2" as const
