/**
 * @verbatim/testkit: test support shared by the packages (private, never published). The
 * `VideoPlatform` contract suite runs on every implementation of the port.
 */

export * from "./speech-to-text-contract.js"
export * from "./video-platform-contract.js"
