/**
 * @param {number} n
 * @returns {number}
 */
function double(n) {
  return n * 2;
}

// Broken before the session: a type error and a lint error, in a file the agent does not edit.
const twice = double("two");
const leftover = 1;

module.exports = { twice };
