/** The error catalogue (codes, statuses, meanings) and ApiError, the typed error that carries one. */
export * from "./api-error.js"
export * from "./codes.js"
export * from "./plain-words.js"
