module.exports = { testTimeout: 600000 };
