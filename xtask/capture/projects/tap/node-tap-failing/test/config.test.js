const t = require('tap')

t.pass('loads')
// Thrown outside any subtest: the whole file fails.
throw new Error('config file missing: cart.json')
