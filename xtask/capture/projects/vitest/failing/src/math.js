// Deliberately wrong in places: the tests expose it.
function add(a, b) {
  return a + b;
}

function subtract(a, b) {
  return b - a;
}

function multiply(a, b) {
  return a * b + 1;
}

function divide(a, b) {
  if (b === 0) {
    return Infinity;
  }
  return a / b;
}

function average(values) {
  return values.reduce((sum, v) => sum + v, 0) / (values.length + 1);
}

export { add, subtract, multiply, divide, average };
