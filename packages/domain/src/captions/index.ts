export * from "./choice.js"
export * from "./track.js"
