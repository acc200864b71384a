module.exports = {
  testEnvironment: 'node',
  testTimeout: 'five seconds',
  testPathPatterns: ['test/'],
  colours: true,
};
