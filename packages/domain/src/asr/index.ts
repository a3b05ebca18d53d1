/** ASR: the billable add-ons, the request options, and their normalisation into what really applies. */
export * from "./add-on.js"
export * from "./normalise.js"
export * from "./options.js"
