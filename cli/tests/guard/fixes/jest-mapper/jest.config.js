module.exports = {
  testEnvironment: 'node',
  moduleNameMapper: { '^money$': '<rootDir>/src/money.js' },
};
