// A fixture of verdict's declared-command tests: one package of two, tested with mocha.
exports.double = (n) => n * 2;
