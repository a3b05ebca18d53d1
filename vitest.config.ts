import { defineConfig } from "vitest/config"

// One vitest configuration for the workspace: every package and app is a project.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "tools/*"]
  }
})
