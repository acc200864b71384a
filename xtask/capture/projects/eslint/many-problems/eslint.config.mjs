import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node },
    },
    rules: {
      "no-console": "warn",
      "no-shadow": "warn",
      "no-else-return": "warn",
      "prefer-const": "error",
      "no-var": "error",
      eqeqeq: "error",
      curly: "error",
    },
  },
];
