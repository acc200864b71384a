import js from "@eslint/js";

export default [
  js.configs.recommended,
  {
    rules: {
      eqeqeq: ["error", "sometimes"],
      "no-unused-vars": "error",
    },
  },
];
