// ESLint: the rules that catch what the compiler does not — promises nobody awaits or handles, type
// assertions that claim more than the value proves, and React hooks used out of order.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      "next-env.d.ts",
      "test-results/",
      "playwright-report/",
      "bench/results/",
      "data/",
      "docs/screenshots/",
      "vitest.config.mts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Browser-only state (storage, the URL fragment, the clock) is read after hydration, in an effect: the
      // server render cannot know it, so setting it there is the pattern, not a cascade.
      "react-hooks/set-state-in-effect": "off",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      "@typescript-eslint/no-unsafe-type-assertion": "error",
      // Stores implement an async interface; a synchronous implementation (SQLite) is still a valid one.
      "@typescript-eslint/require-await": "off",
      // `let io` is read lazily by closures built before it is assigned.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // Names that start with _ are deliberately unused (destructuring a field away).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Tests and benchmarks read what a real server sent: asserting its shape is the point of the check that follows.
    files: ["tests/**", "e2e/**", "bench/**", "**/*.test.ts", "scripts/**"],
    rules: {
      "@typescript-eslint/no-unsafe-type-assertion": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
    },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node scripts and Next's CommonJS config.
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: {
      globals: { console: "readonly", process: "readonly", module: "writable", require: "readonly", __dirname: "readonly" },
    },
  },
);
