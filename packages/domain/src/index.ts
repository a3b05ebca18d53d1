export * as Ids from "./ids.js"
