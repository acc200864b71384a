// A fixture of verdict's declared-command tests: its test script is a chain, and jest's coverage
// threshold (100%) is part of what the project checks.
function seconds(ms) {
  return Math.round(ms / 1000);
}

module.exports = { seconds };
