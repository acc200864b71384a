// Two projects with display names: jest prints the name between `FAIL` and the path.
module.exports = {
  projects: [
    {
      displayName: 'client',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/client/**/*.test.js'],
    },
    {
      displayName: 'server',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/server/**/*.test.js'],
    },
  ],
};
