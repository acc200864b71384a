exports.add = (a, b) => a + b;
exports.double = (n) => n * 2;
