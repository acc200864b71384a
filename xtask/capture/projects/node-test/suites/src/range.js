// The code under test of the node-test suites capture project.
function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high + 1);
}

function span(low, high) {
  return high - low;
}

module.exports = { clamp, span };
