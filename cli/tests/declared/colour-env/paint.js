// A fixture of verdict's declared-command tests: code that decides colour from the environment,
// as chalk and commander do, tested under mocha and node --test.
function colours() {
  if ("NO_COLOR" in process.env) return false;
  if (process.env.FORCE_COLOR === "0") return false;
  return true;
}

function paint(text) {
  return colours() ? `<b>${text}</b>` : text;
}

module.exports = { colours, paint };
