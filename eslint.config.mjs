import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ["node_modules/**", ".next/**", ".data/**", "server/generated/**", "next-env.d.ts", "test-results/**", "playwright-report/**"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Settings come from server/config.ts (validated with zod, one table); nothing else in the app reads the environment.
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: ["server/config.ts"],
    rules: {
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "read settings through server/config.ts (setting())" }],
    },
  },
];

export default config;
