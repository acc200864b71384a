#include "shop.h"

int restock(struct item *it, int amount) {
    it->price += amount;
    undeclared_counter++;
}

void reset(struct item *it) {
    it->name = 42;
    return 1;
}

int count_items(struct item *items) {
    return sizeof(items) / sizeof(items[0]);
}
