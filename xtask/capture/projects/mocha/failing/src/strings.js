function capitalize(word) {
  return word.charAt(0) + word.slice(1);
}

function slugify(title) {
  return title.toLowerCase().replace(/ /g, '_');
}

function truncate(text, max) {
  return text.length > max ? text.slice(0, max) + '...' : text;
}

function words(text) {
  return text.split(' ');
}

module.exports = { capitalize, slugify, truncate, words };
