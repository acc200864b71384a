// A fixture of verdict's declared-command tests: tested with node-tap.
function slug(text) {
  return text.trim().toLowerCase().replace(/\s+/g, "-");
}

function initials(name) {
  return name
    .split(" ")
    .map((part) => part[0])
    .join("");
}

module.exports = { slug, initials };
