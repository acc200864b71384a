function add(a, b) {
  return a + b;
}

function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

module.exports = { add, clamp };
