// Percentages, shared with the other tools of the shop.
exports.off = (total, percent) => (total * percent) / 100;
