// A fixture of verdict's declared-command tests: tested with Node.js's own runner.
function slug(text) {
  return text.trim().toLowerCase().replace(/\s+/g, "-");
}

module.exports = { slug };
