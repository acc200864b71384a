// The project lints only ./src (its lint script says so); this config would flag the stray file.
import js from "@eslint/js";

export default [js.configs.recommended];
