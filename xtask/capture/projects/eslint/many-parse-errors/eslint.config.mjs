import js from "@eslint/js";

// Browser code linted without its globals: `no-undef` in many places of a few legacy files
// and once or twice in many widgets; every page has a syntax error (a merge gone wrong).
export default [
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
    },
  },
];
