import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "storage",
      // The AWS SDK warns once per process that its releases from January 2027 need Node 22 (the
      // versions pinned here run on Node 20).
      env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" }
    }
  })
)
