// Only JavaScript here, and the config includes `lib/`, which does not exist: tsc has no input.
module.exports = {};
