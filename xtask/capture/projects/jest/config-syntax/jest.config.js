module.exports = {
  testEnvironment: 'node',
  verbose: true
  bail: 1,
};
